// The real command: `agent-operator emulate control-plane --trace-delete-delay 300ms` serves the
// platform data API on its URL, and its weekend job runs after that delay. The admin reset
// empties the platform's workspaces along with the control plane.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it, vi } from 'vitest';
import { EmulatorClient } from '../controlplane-emulator/helpers.js';
import { ingestTrace, KEY, remainingTraces, sessionId, startPlatform } from './helpers.js';

const ADMIN_TOKEN = 'platform-process-test';

describe('agent-operator emulate control-plane', () => {
  it('serves the platform data API on the same URL, with the weekend job after --trace-delete-delay', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/dev-cli.ts',
        'emulate',
        'control-plane',
        '--port',
        '0',
        '--api-key',
        KEY,
        '--trace-delete-delay',
        '300ms',
        '--admin-token',
        ADMIN_TOKEN,
      ],
      { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1] ?? '';
      const api = new EmulatorClient({
        url,
        adminToken: ADMIN_TOKEN,
        deployments: () => [],
        close: () => Promise.resolve(),
        restart: () => Promise.resolve(),
      });
      expect(await api.call('GET', '/ok', { key: null })).toMatchObject({ status: 200, body: { ok: true } });
      expect((await api.call('GET', '/v2/listeners')).status).toBe(200);
      const trace = await ingestTrace(api, 'cli');
      const session = await sessionId(api, 'cli');
      const requestedAt = Date.now();
      expect(
        (await api.call('POST', '/api/v1/runs/delete', { body: { session_id: session, trace_ids: [trace] } }))
          .status,
      ).toBe(202);
      await vi.waitFor(async () => expect(await remainingTraces(api, session, [trace])).toEqual([]), {
        timeout: 10_000,
        interval: 50,
      });
      expect(Date.now() - requestedAt).toBeGreaterThanOrEqual(300);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});

describe('admin reset', () => {
  it('empties the platform workspaces too', async () => {
    const api = await startPlatform();
    await ingestTrace(api, 'before-reset');
    expect((await api.call('POST', '/_emulator/reset')).status).toBe(204);
    expect((await api.call<unknown[]>('GET', '/sessions')).body).toEqual([]);
  });
});
