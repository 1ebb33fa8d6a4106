// The Kubernetes emulator driven by a second official client, not JavaScript: the Python
// client (Debian's python3-kubernetes). Where it and a real API server agree, the emulator
// must too: watch=True is a watch, Lease MicroTimes come back in UTC with six fractional
// digits, a completed DELETE of a custom resource answers a Status naming what went, a
// replace that changes nothing keeps resourceVersion.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../packaging/support/run.js';
import { http, installWidgetCrd, startTestEmulator, widget, WIDGETS, type TestEmulator } from './helpers.js';

const PYTHON = '/usr/bin/python3';

function pythonClientMissing(): string | undefined {
  if (spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0) return undefined;
  const reason = `${PYTHON} cannot import kubernetes (bash scripts/install-tools.sh installs python3-kubernetes)`;
  if (process.env.CI) throw new Error(`CI must run the Python-client tests: ${reason}`);
  return reason;
}

const missing = pythonClientMissing();
if (missing) console.warn(`SKIPPED the Python-client tests: ${missing}`);

describe.skipIf(missing !== undefined)('the official Python client against the emulator', () => {
  let env: TestEmulator;
  let answers: {
    watchEvent: { type: string; name: string };
    leaseSpec: { acquireTime: string; renewTime: string };
    deleted: Record<string, unknown>;
    noopReplace: { configMap: [string, string]; deployment: [string, string] };
  };
  let uid: string;

  beforeAll(async () => {
    env = await startTestEmulator();
    await installWidgetCrd(env);
    const created = await http(env, 'POST', WIDGETS, widget('python-widget'));
    uid = (created.body['metadata'] as { uid: string }).uid;
    const result = await run(PYTHON, [
      join(import.meta.dirname, 'python', 'client_checks.py'),
      env.kubeconfig,
    ]);
    if (result.code !== 0) throw new Error(`the Python client failed:\n${result.stderr}`);
    answers = JSON.parse(result.stdout) as typeof answers;
  }, 60_000);
  afterAll(async () => {
    await env?.stop();
  });

  it('watches with watch=True', () => {
    expect(answers.watchEvent).toEqual({ type: 'ADDED', name: 'python-widget' });
  });

  it('stores and answers Lease MicroTimes in UTC with six fractional digits', () => {
    expect(answers.leaseSpec.renewTime).toBe('2025-12-31T23:00:00.123456Z');
    expect(answers.leaseSpec.acquireTime).toBe('2025-12-31T23:00:00.123456Z');
  });

  it('keeps resourceVersion on a replace that changes nothing (the object sent back as read)', () => {
    const [mapRead, mapReplaced] = answers.noopReplace.configMap;
    expect(mapReplaced).toBe(mapRead);
    const [deploymentRead, deploymentReplaced] = answers.noopReplace.deployment;
    expect(deploymentReplaced).toBe(deploymentRead);
  });

  it('answers a completed delete of a custom resource with a Status naming it', () => {
    expect(answers.deleted).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Success',
      details: { name: 'python-widget', group: 'example.com', kind: 'widgets', uid },
    });
  });
});

describe('query booleans', () => {
  let env: TestEmulator;
  beforeAll(async () => {
    env = await startTestEmulator();
  });
  afterAll(async () => {
    await env.stop();
  });

  it.each(['true', 'True', 'TRUE', '1', 'yes', ''])('watch=%s is a watch', async (value) => {
    const stop = new AbortController();
    const response = await fetch(`${env.emulator.url}/api/v1/namespaces/default/configmaps?watch=${value}`, {
      signal: stop.signal,
    });
    // A list is one sized JSON document; a watch is an open chunked stream of events.
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    stop.abort();
  });

  it.each(['false', 'False', 'FALSE', '0'])('watch=%s is a list', async (value) => {
    const response = await fetch(`${env.emulator.url}/api/v1/namespaces/default/configmaps?watch=${value}`);
    expect(((await response.json()) as { kind: string }).kind).toBe('ConfigMapList');
  });
});
