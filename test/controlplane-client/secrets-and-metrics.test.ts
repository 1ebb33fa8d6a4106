// Secrets stay secret (the API key and secret values never reach logs or error messages,
// even when a 400 echoes the request body) and the prom-client binding exposes the named
// series with route templates, never ids.
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import type { ControlPlaneError } from '../../src/controlplane/client/errors.js';
import { createControlPlaneMetrics } from '../../src/observability/controlplane-metrics.js';
import { createLogger } from '../../src/observability/logger.js';
import { startControlPlaneEmulator, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';
import { emulatorAdmin } from './support/emulator.js';
import { secretForms } from '../support/secret-forms.js';

const API_KEY = 'sk-very-secret-api-key-7781';
const SECRET_VALUE = 'super-secret-openai-value-42';
/** Values an echo must not leak: a quote and a backslash, 3 characters, a PEM key. */
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
afterAll(async () => {
  await emulator.close();
});

function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'trace', destination }) };
}

describe('secrets', () => {
  it('never puts the API key or a secret value in logs or error messages', async () => {
    const { lines, logger } = capturingLogger();
    const client = new ControlPlaneClient({
      baseUrl: emulator.url,
      credentials: { apiKey: API_KEY },
      logger,
      retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 2 },
    });
    const errors: ControlPlaneError[] = [];
    const collect = <T>(result: { ok: true; value: T } | { ok: false; error: ControlPlaneError }) => {
      if (!result.ok) errors.push(result.error);
    };
    const body = {
      name: 'secretive',
      source: 'external_container' as const,
      source_config: {},
      source_revision_config: { image_uri: 'registry.example/agent:1' },
      secrets: [{ name: 'OPENAI_API_KEY', value: SECRET_VALUE }],
    };
    collect(await client.createDeployment(body));
    collect(await client.createDeployment({ ...body, name: '' }));
    await emulatorAdmin.addFault(emulator, { method: 'GET', status: 503 });
    collect(await client.listListeners());
    await emulatorAdmin.clearFaults(emulator);
    await emulatorAdmin.addFault(emulator, { method: 'PATCH', reset: true });
    collect(
      await client.patchDeployment('0b9e7c1e-8f4a-4a57-9d55-6f0f6f1f2a3b', {
        secrets: [{ name: 'X', value: SECRET_VALUE }],
      }),
    );
    await emulatorAdmin.clearFaults(emulator);
    collect(await client.getDeployment('0b9e7c1e-8f4a-4a57-9d55-6f0f6f1f2a3b'));
    await client.close();

    const wrong = new ControlPlaneClient({
      baseUrl: emulator.url,
      credentials: { apiKey: `${API_KEY}-wrong` },
      logger,
    });
    collect(await wrong.listListeners());
    await wrong.close();

    expect(lines.length).toBeGreaterThan(4);
    expect(errors.length).toBeGreaterThan(3);
    const everything = [...lines, ...errors.map((e) => JSON.stringify(e))].join('\n');
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain(SECRET_VALUE);
  });
});

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
      for (const form of secretForms(value)) expect(everything, JSON.stringify(form)).not.toContain(form);
    }
  });
});

describe('prom-client binding', () => {
  it('exposes the named series, by route template', async () => {
    const registry = new Registry();
    const client = new ControlPlaneClient({
      baseUrl: emulator.url,
      credentials: { apiKey: API_KEY },
      metrics: createControlPlaneMetrics(registry),
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    });
    await emulatorAdmin.addFault(emulator, {
      method: 'GET',
      route: '/v2/deployments/{deployment_id}',
      status: 429,
      count: 1,
      retryAfterSeconds: 0,
    });
    await client.getDeployment('0b9e7c1e-8f4a-4a57-9d55-6f0f6f1f2a3b');
    await client.close();
    await emulatorAdmin.clearFaults(emulator);
    const text = await registry.metrics();
    expect(text).toContain(
      'agent_operator_controlplane_requests_total{route="/v2/deployments/{deployment_id}",method="GET",code="429"} 1',
    );
    expect(text).toContain(
      'agent_operator_controlplane_requests_total{route="/v2/deployments/{deployment_id}",method="GET",code="404"} 1',
    );
    expect(text).toContain(
      'agent_operator_controlplane_throttled_total{route="/v2/deployments/{deployment_id}"} 1',
    );
    expect(text).toContain(
      'agent_operator_controlplane_retries_total{route="/v2/deployments/{deployment_id}",reason="429"} 1',
    );
    expect(text).toContain(
      'agent_operator_controlplane_request_duration_seconds_count{route="/v2/deployments/{deployment_id}",method="GET"} 2',
    );
    expect(text).toContain('agent_operator_controlplane_budget_wait_seconds_count 2');
    expect(text).not.toContain('0b9e7c1e');
  });
});
