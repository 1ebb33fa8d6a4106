// The heap settle's collections give back pages a plain full collection keeps: a fragmented old
// space (40% of every page free) shrinks under compacting collections and not under plain
// ones. Each kind runs in a node process of its own, started with --expose-gc as the image's
// entrypoint starts the operator.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { favoursMemoryAlready } from '../../src/operator/compacting-collection.js';

const ROOT = join(import.meta.dirname, '..', '..');

async function committedAfterCollections(kind: 'compacting' | 'plain'): Promise<number[]> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'test/operator/support/fragmented-heap-child.ts', kind, '6'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return (JSON.parse(stdout) as { committed: number[] }).committed;
}

describe('the heap settle collection', () => {
  it('gives back fragmented old-space pages that plain full collections keep', async () => {
    const plain = await committedAfterCollections('plain');
    const compacting = await committedAfterCollections('compacting');
    const given = (committed: number[]) => (committed[0] ?? 0) - (committed[committed.length - 1] ?? 0);
    expect(given(plain)).toBeLessThan(5);
    expect(given(compacting)).toBeGreaterThan(20);
  }, 60_000);

  it('leaves the flag alone in a process started favouring memory', () => {
    expect(favoursMemoryAlready(['--expose-gc', '--optimize-for-size'], undefined)).toBe(true);
    expect(favoursMemoryAlready([], '--max-old-space-size=512 --optimize_for_size')).toBe(true);
    expect(favoursMemoryAlready(['--expose-gc'], '--max-semi-space-size=4')).toBe(false);
    expect(favoursMemoryAlready([], undefined)).toBe(false);
  });
});
