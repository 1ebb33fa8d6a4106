// Conformance with the real kubectl binary: what a user does with a CRD-backed operator.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIXTURES,
  http,
  kubectl,
  kubectlWatching,
  startTestEmulator,
  WIDGETS,
  type TestEmulator,
} from './helpers.js';

let env: TestEmulator;

beforeAll(async () => {
  env = await startTestEmulator();
});
afterAll(async () => {
  await env.stop();
});

async function ok(args: string[], stdin?: string): Promise<string> {
  const result = await kubectl(env, args, stdin);
  expect(result.stderr, `kubectl ${args.join(' ')}`).not.toMatch(/^error/m);
  expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

describe('real kubectl against the emulator', () => {
  it('applies a CRD that becomes Established and serves objects with printer columns', async () => {
    await ok(['apply', '-f', join(FIXTURES, 'widget-crd.yaml')]);
    await ok(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=10s']);
    await ok(['apply', '-f', join(FIXTURES, 'widget.yaml')]);
    const table = await ok(['get', 'widgets']);
    const [header, row] = table.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'SIZE', 'READY', 'AGE']);
    expect(row).toMatch(/^w1\s+3\s+\d+s$/);
    // short name, category and the defaulted field
    expect(await ok(['get', 'wd', 'w1', '-o', 'jsonpath={.spec.color}'])).toBe('blue');
    expect(await ok(['get', 'examples', '-o', 'name'])).toContain('widget.example.com/w1');
  });

  it('explains the custom resource from its OpenAPI v3 schema', async () => {
    const text = await ok(['explain', 'widgets.spec']);
    expect(text).toContain('KIND:       Widget');
    expect(text).toContain('How big the widget is; it may only grow.');
    expect(text).toMatch(/size\s+<integer> -required-/);
  });

  it('rejects an update that breaks the CEL transition rule, with the server message', async () => {
    const result = await kubectl(env, ['patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"size":1}}']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('The Widget "w1" is invalid');
    expect(result.stderr).toContain('size may only grow');
    expect(await ok(['get', 'wd', 'w1', '-o', 'jsonpath={.spec.size}'])).toBe('3');
  });

  it('refuses strategic merge patch on a custom resource like the real server (415)', async () => {
    const result = await kubectl(env, ['patch', 'widget', 'w1', '--type=strategic', '-p', '{"spec":{"size":4}}']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('the body of the request was in an unknown format');
  });

  it('wait --for=condition=Ready succeeds once the status is patched', async () => {
    const waiting = kubectlWatching(env, ['wait', '--for=condition=Ready', 'widget/w1', '--timeout=20s']);
    await waiting.watching;
    await ok(['patch', 'widget', 'w1', '--subresource=status', '--type=merge', '-p', '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}']);
    const result = await waiting.result;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('condition met');
    expect(await ok(['get', 'widgets', '--no-headers'])).toMatch(/^w1\s+3\s+True\s+/);
  });

  it('get -w sees an update', async () => {
    const watching = kubectlWatching(env, ['get', 'widgets', '-w', '--request-timeout=4s']);
    await watching.watching;
    await ok(['patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"size":9}}']);
    const result = await watching.result;
    // The first row is the list before the patch; the update arrives as a watch event.
    const rows = result.stdout.split('\n').filter((line) => line.startsWith('w1'));
    expect(rows[0]).toMatch(/^w1\s+3\s+True/);
    expect(rows.slice(1).some((row) => /^w1\s+9\s+True/.test(row))).toBe(true);
  });

  it('delete is blocked by a finalizer until it is removed', async () => {
    await ok(['patch', 'widget', 'w1', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
    await ok(['delete', 'widget', 'w1', '--wait=false']);
    expect(await ok(['get', 'widget', 'w1', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).toMatch(/^\d{4}-/);
    const deleting = kubectlWatching(env, ['wait', '--for=delete', 'widget/w1', '--timeout=20s']);
    await deleting.watching;
    await ok(['patch', 'widget', 'w1', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    expect((await deleting.result).code).toBe(0);
    expect((await http(env, 'GET', `${WIDGETS}/w1`)).status).toBe(404);
  });

  it('imperative create commands (protobuf bodies) and namespace deletion with its content', async () => {
    await ok(['create', 'namespace', 'team-a']);
    await ok(['-n', 'team-a', 'create', 'secret', 'generic', 'api-key', '--from-literal=apiKey=s3cret']);
    await ok(['-n', 'team-a', 'create', 'configmap', 'settings', '--from-literal=mode=fast']);
    expect(Buffer.from(await ok(['-n', 'team-a', 'get', 'secret', 'api-key', '-o', 'jsonpath={.data.apiKey}']), 'base64').toString()).toBe('s3cret');
    expect(await ok(['-n', 'team-a', 'get', 'secret', 'api-key', '-o', 'jsonpath={.type}'])).toBe('Opaque');
    await ok(['delete', 'namespace', 'team-a']);
    expect((await http(env, 'GET', '/api/v1/namespaces/team-a')).status).toBe(404);
    expect((await http(env, 'GET', '/api/v1/namespaces/team-a/secrets/api-key')).status).toBe(404);
  });

  it('applies and re-applies built-in kinds (client-side apply with strategic merge)', async () => {
    const deployment = (image: string): string => `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, labels: { app: web } }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: ${image}
          ports: [{ containerPort: 80 }]
        - name: sidecar
          image: busybox
`;
    await ok(['apply', '-f', '-'], deployment('nginx:1'));
    await ok(['apply', '-f', '-'], deployment('nginx:2'));
    const images = await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[*].image}']);
    expect(images).toBe('nginx:2 busybox');
    expect(await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.metadata.generation}'])).toBe('2');
  });
});
