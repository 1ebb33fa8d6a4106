// `emulate control-plane --region us --region eu --path-prefix /cp`: one process serving two
// regions, each with its own address, keys, rate limit and state, under the self-hosted
// path prefix; driven over real HTTP by the operator's own client.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/controlplane/client/index.js';
import { parseEmulatorArgs, type EmulatorCommand } from '../../src/sim/controlplane/cli.js';
import { startRegionalEmulators, type RegionalEmulators } from '../../src/sim/controlplane/regions.js';

let running: RegionalEmulators | undefined;
const clients: ControlPlaneClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await running?.close();
  running = undefined;
});

function client(baseUrl: string, apiKey: string): ControlPlaneClient {
  const made = new ControlPlaneClient({ baseUrl, credentials: { apiKey }, retry: { maxAttempts: 1 } });
  clients.push(made);
  return made;
}

function command(argv: string[]): EmulatorCommand {
  const parsed = parseEmulatorArgs(argv);
  if (parsed === 'help') throw new Error('help');
  return parsed;
}

describe('several regions in one emulator command', () => {
  it('parses per-region keys and rate limits, with a default key per region', () => {
    const parsed = command([
      '--port',
      '0',
      '--region',
      'us',
      '--region',
      'eu',
      '--api-key',
      'eu:eu-key',
      '--rate-limit',
      'eu:5/10',
    ]);
    expect(parsed.regions?.map((r) => [r.region, r.options.apiKeys, r.options.rateLimit])).toEqual([
      ['us', [{ key: 'emulator-key-us' }], undefined],
      ['eu', [{ key: 'eu-key' }], { count: 5, windowSeconds: 10 }],
    ]);
    expect(() => command(['--port', '0', '--region', 'ap'])).toThrow('--region must be one of us, eu');
    expect(() => command(['--port', '0', '--path-prefix', 'cp/'])).toThrow('--path-prefix must look like');
  });

  it('each region has its own address, keys, rate limit and state; the API is served under the prefix', async () => {
    const parsed = command([
      '--port',
      '0',
      '--region',
      'us',
      '--region',
      'eu',
      '--path-prefix',
      '/cp',
      '--api-key',
      'us:us-key',
      '--api-key',
      'eu:eu-key',
      '--rate-limit',
      'eu:2/60',
      '--revision-phase-ms',
      '0',
    ]);
    running = await startRegionalEmulators(parsed.regions ?? []);
    const [us, eu] = running.regions;
    if (us === undefined || eu === undefined) throw new Error('two regions');
    expect(us.url).not.toBe(eu.url);
    expect(us.url).toMatch(/\/cp$/);

    expect((await client(us.url, 'us-key').listListeners()).ok).toBe(true);
    const foreign = await client(eu.url, 'us-key').listListeners();
    expect(foreign.ok ? 200 : foreign.error).toMatchObject({ kind: 'Terminal', status: 401 });

    const usListeners = await client(us.url, 'us-key').listListeners();
    const euListeners = await client(eu.url, 'eu-key').listListeners();
    const ids = (r: typeof usListeners) => (r.ok ? r.value.resources.map((l) => l.id) : []);
    expect(ids(usListeners)).not.toEqual(ids(euListeners));

    // EU allows 2 per minute (one was spent above); the US keeps the default.
    const euClient = client(eu.url, 'eu-key');
    await euClient.listListeners();
    const third = await fetch(`${eu.url}/v2/listeners`, { headers: { 'x-api-key': 'eu-key' } });
    expect(third.status).toBe(429);
    expect((await client(us.url, 'us-key').listListeners()).ok).toBe(true);

    const unprefixed = await fetch(`${us.url.replace(/\/cp$/, '')}/v2/listeners`, {
      headers: { 'x-api-key': 'us-key' },
    });
    expect(unprefixed.status).toBe(404);
  });

  it('the command prints one line per region and exits 0 on SIGTERM', async () => {
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
        '--region',
        'us',
        '--region',
        'eu',
      ],
      { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const lines = createInterface({ input: child.stdout });
      const seen: string[] = [];
      for await (const line of lines) {
        seen.push(line);
        if (seen.length === 2) break;
      }
      expect(seen[0]).toMatch(/^control-plane emulator \(us\) listening on http:\/\/127\.0\.0\.1:\d+$/);
      expect(seen[1]).toMatch(/^control-plane emulator \(eu\) listening on http:\/\/127\.0\.0\.1:\d+$/);
      const euUrl = /(http:\S+)/.exec(seen[1] ?? '')?.[1] ?? '';
      expect((await client(euUrl, 'emulator-key-eu').listListeners()).ok).toBe(true);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      expect(((await exited) as [number | null])[0]).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
