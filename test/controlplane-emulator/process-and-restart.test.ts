// The emulator as a process and across restarts: restart() drops connections and keeps
// state; the CLI prints one line with its URL, serves, and exits 0 on SIGTERM; a real
// (small) phase moves revisions forward on the wall clock.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { parseEmulatorArgs } from '../../src/sim/controlplane/cli.js';
import {
  EmulatorClient,
  KEY,
  containerBody,
  startEmulator,
  type WireDeployment,
  type WireRevision,
} from './helpers.js';

describe('restart()', () => {
  it('keeps every deployment and answers on the same URL', async () => {
    const client = await startEmulator();
    const { listenerId } = await client.defaults();
    const created = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId),
    });
    await client.emulator.restart();
    // restart() drops every connection, so a pooled keep-alive socket may fail once, as it
    // would for any client of a restarted server; the retry must then find the state intact.
    const get = () => client.call<WireDeployment>('GET', `/v2/deployments/${created.body.id}`);
    const after = await get().catch(get);
    expect(after.status).toBe(200);
    expect(after.body.name).toBe(created.body.name);
  });
});

describe('a small real phase', () => {
  it('moves a revision through its states in order on the wall clock', async () => {
    const client = await startEmulator({ revisionPhaseMs: 25 });
    const { listenerId } = await client.defaults();
    const created = await client.call<WireDeployment>('POST', '/v2/deployments', {
      body: containerBody(listenerId),
    });
    const order = ['CREATING', 'QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING', 'DEPLOYED'];
    const seen: string[] = [];
    for (let i = 0; i < 200 && seen[seen.length - 1] !== 'DEPLOYED'; i++) {
      const r = await client.call<WireRevision>(
        'GET',
        `/v2/deployments/${created.body.id}/revisions/${created.body.latest_revision_id ?? ''}`,
      );
      if (seen[seen.length - 1] !== r.body.status) seen.push(r.body.status);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(seen[seen.length - 1]).toBe('DEPLOYED');
    const indexes = seen.map((s) => order.indexOf(s));
    expect(indexes.every((value, i) => value >= 0 && (i === 0 || value > (indexes[i - 1] ?? -1)))).toBe(true);
  });
});

describe('CLI', () => {
  it('parses its flags', () => {
    expect(
      parseEmulatorArgs([
        '--port',
        '0',
        '--api-key',
        'a',
        '--api-key',
        'b=11111111-1111-4111-8111-111111111111,22222222-2222-4222-8222-222222222222',
        '--rate-limit',
        '5/2',
        '--no-retry-after',
        '--revision-phase-ms',
        '0',
      ]),
    ).toEqual({
      port: 0,
      host: '127.0.0.1',
      apiKeys: [
        { key: 'a' },
        {
          key: 'b',
          tenantIds: ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'],
        },
      ],
      rateLimit: { count: 5, windowSeconds: 2 },
      retryAfter: false,
      revisionPhaseMs: 0,
    });
    expect(parseEmulatorArgs(['--port', '1', '--rate-limit', 'off'])).toMatchObject({ rateLimit: 'off' });
    // Like `emulate kube`: no --port means any free port.
    expect(parseEmulatorArgs([])).toMatchObject({ port: 0 });
    expect(parseEmulatorArgs(['--log-level', 'warn'])).toMatchObject({ logLevel: 'warn' });
  });

  it.each([
    [['--port', 'x'], /--port must be/],
    [['--port', '0', '--rate-limit', '5'], /--rate-limit must be/],
    [['--port', '0', '--api-key', 'k=acme'], /tenant "acme" is not a uuid/],
    [['--port', '0', '--revision-phase-ms', '-1'], /revision-phase-ms/],
    [['--log-level', 'verbose'], /--log-level must be one of silent, error, warn, info, debug/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseEmulatorArgs(argv)).toThrow(message);
  });

  it('prints one line with its URL, serves the API, and exits 0 on SIGTERM', async () => {
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
        '--revision-phase-ms',
        '0',
      ],
      {
        cwd: new URL('../..', import.meta.url).pathname,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const lines = createInterface({ input: child.stdout });
      const [line] = (await once(lines, 'line')) as [string];
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      expect(url).toBeDefined();
      const client = new EmulatorClient({
        url: url ?? '',
        adminToken: '',
        deployments: () => [],
        close: () => Promise.resolve(),
        restart: () => Promise.resolve(),
      });
      const listeners = await client.call('GET', '/v2/listeners', { key: KEY });
      expect(listeners.status).toBe(200);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
