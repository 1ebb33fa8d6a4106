// The `agent-operator emulate kube` command: prints its URL, writes a kubeconfig, exits 0 on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

describe('emulate kube CLI', () => {
  it('serves until SIGTERM and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kube-emulator-cli-'));
    const kubeconfig = join(dir, 'kubeconfig');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev-cli.ts', 'emulate', 'kube', '--port', '0', '--write-kubeconfig', kubeconfig, '--log-level', 'silent'], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const firstLine = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await readFile(kubeconfig, 'utf8')).toContain(firstLine);
    const version = (await (await fetch(`${firstLine}/version`)).json()) as { major: string; minor: string };
    expect(version).toMatchObject({ major: '1', minor: '32' });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it('rejects a bad flag with a message naming it', async () => {
    // In a child process, so that the message is checked rather than printed into the test run.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev-cli.ts', 'emulate', 'kube', '--port', 'eighty'], {
      cwd: join(import.meta.dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port: must be a non-negative integer, got "eighty"');
  });
});
