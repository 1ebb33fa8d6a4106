// A 400 whose detail echoes the request body (as proxies and validation layers do) against
// the real client: message and detail (what events and status get) hold no server text,
// serverDetail (debug logs only) is redacted, and logs and metrics hold no secret either.
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import { createControlPlaneMetrics } from '../../src/observability/controlplane-metrics.js';
import { createLogger } from '../../src/observability/logger.js';
import { startControlPlaneEmulator, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';
import { emulatorAdmin } from './support/emulator.js';

const API_KEY = 'sk-echo-test-key-5521';
const VALUES = [
  'p"q\\r-secret',
  'Zq9',
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END PRIVATE KEY-----\n',
];
let emulator: ControlPlaneEmulator;

beforeAll(async () => {
  emulator = await startControlPlaneEmulator({
    apiKeys: [{ key: API_KEY }],
    revisionPhaseMs: 0,
    rateLimit: 'off',
  });
});
afterAll(() => emulator.close());

function forms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  return [
    value,
    once,
    JSON.stringify(once).slice(1, -1),
    encodeURIComponent(value),
    Buffer.from(value).toString('base64'),
  ];
}

describe('an echoing 400', () => {
  it('keeps every secret out of the error value, the logs and the metrics', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const registry = new Registry();
    const client = new ControlPlaneClient({
      baseUrl: emulator.url,
      credentials: { apiKey: API_KEY },
      logger: createLogger({ level: 'trace', destination }),
      metrics: createControlPlaneMetrics(registry),
    });
    await emulatorAdmin.addFault(emulator, { method: 'POST', status: 400, echoBody: true });
    const listeners = await client.listListeners();
    const listenerId = listeners.ok ? (listeners.value.resources[0]?.id ?? '') : '';
    const result = await client.createDeployment({
      name: 'echo',
      source: 'external_container',
      source_config: { listener_id: listenerId },
      source_revision_config: { image_uri: 'registry.example/agent:1' },
      secrets: VALUES.map((value, i) => ({ name: `S${i}`, value })),
    });
    await client.close();
    await emulatorAdmin.clearFaults(emulator);

    expect(result.ok).toBe(false);
    if (result.ok) return;
    const error = result.error;
    expect(error).toMatchObject({
      kind: 'Terminal',
      status: 400,
      message: 'POST /v2/deployments: HTTP 400: the control plane refused the request as invalid',
      detail: 'the control plane refused the request as invalid',
    });
    expect(error.serverDetail).toMatch(/^Injected fault: HTTP 400; request body: .*\[REDACTED\]/);
    const safe = JSON.stringify({ message: error.message, detail: 'detail' in error ? error.detail : '' });
    expect(safe).not.toContain('request body');
    const everything = [JSON.stringify(error), ...lines, await registry.metrics()].join('\n');
    for (const value of [...VALUES, API_KEY]) {
      for (const form of forms(value)) expect(everything, JSON.stringify(form)).not.toContain(form);
    }
  });
});
