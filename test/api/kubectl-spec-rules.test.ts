// What the control plane would refuse is refused at `kubectl apply`, naming the field the
// user wrote: the real kubectl against the Kubernetes emulator serving the committed CRD.
// Before these rules, `minScale: 3, maxScale: 1` and `cpu: 2, cpuLimit: 1` were admitted and
// ended Rejected in the control plane's wire names; a listener id that passed `format: uuid`
// was refused by the operator as "Invalid UUID".
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dump } from 'js-yaml';
import { startKube, type KubeUnderTest } from '../packaging/support/kube-emulator.js';

const CRD_FILE = fileURLToPath(new URL('../../crds/agentplatform.io_agentdeployments.yaml', import.meta.url));
const LISTENER_ID = '53a22649-b624-5585-b661-5f2b13429240';

let kube: KubeUnderTest;

function agent(name: string, sourceConfig: Record<string, unknown>): string {
  return dump({
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace: 'default' },
    spec: {
      source: 'external_container',
      sourceConfig: { listenerId: LISTENER_ID, ...sourceConfig },
      sourceRevisionConfig: { imageUri: `registry.example.com/${name}:1.0.0` },
    },
  });
}

async function apply(manifest: string): Promise<{ code: number; stderr: string }> {
  const result = await kube.kubectl(['apply', '-f', '-'], manifest);
  return { code: result.code, stderr: result.stderr };
}

beforeAll(async () => {
  kube = await startKube();
  const crd = await kube.kubectl(['apply', '-f', CRD_FILE]);
  expect(crd.code, crd.stderr).toBe(0);
  const established = await kube.kubectl([
    'wait',
    '--for=condition=Established',
    '--timeout=30s',
    'crd/agentdeployments.agentplatform.io',
  ]);
  expect(established.code, established.stderr).toBe(0);
});

afterAll(async () => {
  await kube?.stop();
});

const RS = 'spec.sourceConfig.resourceSpec';

describe('kubectl apply refuses what the control plane would refuse', () => {
  it.each([
    [
      'minScale 3, maxScale 1',
      { resourceSpec: { minScale: 3, maxScale: 1 } },
      `${RS}.minScale: Invalid value: "object": ${RS}.minScale must not exceed ${RS}.maxScale`,
    ],
    [
      'cpu 2, cpuLimit 1',
      { resourceSpec: { cpu: 2, cpuLimit: 1 } },
      `${RS}.cpuLimit: Invalid value: "object": ${RS}.cpuLimit must not be below ${RS}.cpu, both rounded to one decimal place`,
    ],
    [
      'memoryMb 2048, memoryLimitMb 1024',
      { resourceSpec: { memoryMb: 2048, memoryLimitMb: 1024 } },
      `${RS}.memoryLimitMb: Invalid value: "object": ${RS}.memoryLimitMb must not be below ${RS}.memoryMb`,
    ],
    [
      'a listener id of version 0 (format: uuid alone admits it)',
      { listenerId: '00000000-0000-0000-0000-000000000001' },
      'spec.sourceConfig.listenerId: Invalid value: "string": spec.sourceConfig.listenerId must be a UUID (RFC 9562',
    ],
  ])('%s', async (name, sourceConfig, message) => {
    const result = await apply(agent(`refused-${name.length}`, sourceConfig));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/source_config|min_scale|cpu_limit/);
  });

  it('admits the same specs once they are consistent, the rounding as the control plane rounds', async () => {
    const result = await apply(
      agent('consistent', {
        resourceSpec: { minScale: 1, maxScale: 3, cpu: 1.04, cpuLimit: 1, memoryMb: 512 },
      }),
    );
    expect(result.code, result.stderr).toBe(0);
    const stored = await kube.kubectl([
      'get',
      'agd',
      'consistent',
      '-o',
      'jsonpath={.spec.sourceConfig.listenerId}',
    ]);
    expect(stored.stdout).toBe(LISTENER_ID);
    const deleted = await kube.kubectl(['delete', 'agd', 'consistent']);
    expect(deleted.code, deleted.stderr).toBe(0);
  });
});
