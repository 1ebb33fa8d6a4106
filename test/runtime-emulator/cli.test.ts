// `agent-operator emulate control-plane` announces where the agent runtimes answer, and a
// deployment created through it answers at that address.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const KEY = 'cli-key';

describe('emulate control-plane', () => {
  it('prints the agent runtime address pattern, and the runtime answers there', async () => {
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
        '--revision-phase-ms',
        '0',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const first = String((await lines.next()).value);
      const second = String((await lines.next()).value);
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(first)?.[1] ?? '';
      expect(second).toBe(`agent runtimes at ${url}/agents/<deployment id>`);

      const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
      const listeners = (await (await fetch(`${url}/v2/listeners`, { headers })).json()) as {
        resources: { id: string }[];
      };
      const created = (await (
        await fetch(`${url}/v2/deployments`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            name: 'cli-agent',
            source: 'external_container',
            source_config: { listener_id: listeners.resources[0]?.id },
            source_revision_config: { image_uri: 'registry.example/cli:1' },
            secrets: [],
          }),
        })
      ).json()) as { id: string; source_config: { custom_url: string } };
      const agentUrl = second.replace(/^agent runtimes at /, '').replace('<deployment id>', created.id);
      expect(created.source_config.custom_url).toBe(agentUrl);
      const ok = await fetch(`${agentUrl}/ok`, {
        headers: { 'x-api-key': KEY, 'x-auth-scheme': 'platform-api-key' },
      });
      expect(await ok.json()).toEqual({ ok: true });
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});
