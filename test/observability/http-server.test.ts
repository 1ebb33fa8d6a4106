import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startObservabilityServer, type ObservabilityServer } from '../../src/observability/http-server.js';

let server: ObservabilityServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('metrics and probes server', () => {
  it('serves /metrics, and probes that say why they fail', async () => {
    const registry = new Registry();
    new Counter({ name: 'demo_total', help: 'x', registers: [registry] }).inc(3);
    new Counter({ name: 'other_total', help: 'y', registers: [registry] }).inc(1);
    let ready = false;
    server = await startObservabilityServer({
      host: '127.0.0.1',
      port: 0,
      registry,
      liveness: () => ({ ok: true, reason: 'ok' }),
      readiness: () =>
        ready
          ? { ok: true, reason: 'ok (leader)' }
          : { ok: false, reason: 'cache not synced: agentdeployments' },
    });
    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('demo_total 3');
    // Only the metrics asked for by name (other_total is left out); an unknown name is skipped.
    const chosen = await fetch(`${server.url}/metrics?name[]=demo_total&name[]=no_such_metric`);
    expect(chosen.status).toBe(200);
    const chosenText = await chosen.text();
    expect(chosenText).toContain('demo_total 3');
    expect(chosenText).not.toContain('other_total');
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toContain('cache not synced: agentdeployments');
    ready = true;
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
