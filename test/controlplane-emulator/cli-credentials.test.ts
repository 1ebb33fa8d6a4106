// The emulator CLI takes its API keys and admin token from a file or the environment too,
// so that CI can keep them out of the command line (which `ps` shows to every user).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_ENV } from '../../src/sim/controlplane/admin-guard.js';
import { parseEmulatorArgs } from '../../src/sim/controlplane/cli.js';
import { API_KEYS_ENV } from '../../src/sim/controlplane/key-file.js';

const TENANT = '11111111-1111-4111-8111-111111111111';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cp-emulator-cli-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('API keys', () => {
  it('reads --api-key-file, one spec per line, next to --api-key', async () => {
    const file = join(dir, 'keys');
    await writeFile(file, `file-key-1\n\n  file-key-2=${TENANT}  \n`);
    expect(
      parseEmulatorArgs(['--port', '0', '--api-key', 'flag-key', '--api-key-file', file], {}),
    ).toMatchObject({
      apiKeys: [{ key: 'flag-key' }, { key: 'file-key-1' }, { key: 'file-key-2', tenantIds: [TENANT] }],
    });
  });

  it(`reads ${API_KEYS_ENV} when no flag names a key, and the flags win over it`, () => {
    const env = { [API_KEYS_ENV]: `env-key-1 env-key-2=${TENANT}` };
    expect(parseEmulatorArgs(['--port', '0'], env)).toMatchObject({
      apiKeys: [{ key: 'env-key-1' }, { key: 'env-key-2', tenantIds: [TENANT] }],
    });
    expect(parseEmulatorArgs(['--port', '0', '--api-key', 'flag-key'], env)).toMatchObject({
      apiKeys: [{ key: 'flag-key' }],
    });
    expect(parseEmulatorArgs(['--port', '0'], {})).not.toHaveProperty('apiKeys');
  });

  it('names the file when it cannot be read or holds no key', async () => {
    const empty = join(dir, 'empty');
    await writeFile(empty, '\n  \n');
    expect(() => parseEmulatorArgs(['--port', '0', '--api-key-file', join(dir, 'missing')], {})).toThrow(
      /--api-key-file: cannot read .*missing \(ENOENT\)/,
    );
    expect(() => parseEmulatorArgs(['--port', '0', '--api-key-file', empty], {})).toThrow(/names no key/);
  });
});

describe('admin token', () => {
  it(`comes from --admin-token, else ${ADMIN_TOKEN_ENV}`, () => {
    expect(
      parseEmulatorArgs(['--port', '0', '--admin-token', 'flag-token'], { [ADMIN_TOKEN_ENV]: 'env' }),
    ).toMatchObject({ adminToken: 'flag-token' });
    expect(parseEmulatorArgs(['--port', '0'], { [ADMIN_TOKEN_ENV]: 'env-token' })).toMatchObject({
      adminToken: 'env-token',
    });
    expect(() => parseEmulatorArgs(['--port', '0', '--admin-token', 'a b'], {})).toThrow(/--admin-token/);
  });

  it('is generated and printed on stderr when none is given, and then guards the admin API', async () => {
    const env = { ...process.env };
    delete env[ADMIN_TOKEN_ENV];
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/dev-cli.ts', 'emulate', 'control-plane', '--port', '0'],
      { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'], env },
    );
    try {
      const tokenLine = new Promise<string>((resolve) => {
        createInterface({ input: child.stderr }).on('line', (line) => {
          if (line.includes('admin token')) resolve(line);
        });
      });
      const [urlLine] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const url = /(http:\/\/\S+)/.exec(urlLine)?.[1] ?? '';
      const token = /: (\S+)$/.exec(await tokenLine)?.[1] ?? '';
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect((await fetch(`${url}/_emulator/stats`)).status).toBe(401);
      const authorized = await fetch(`${url}/_emulator/stats`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(authorized.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
