// The heap settle's collections give back pages a plain full collection keeps: a fragmented old
// space (40% of every page free) shrinks under compacting collections, and so does the
// process's resident memory, and not under plain ones. Each kind runs in a node process of
// its own, started with --expose-gc as the image's entrypoint starts the operator.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactingCollection, favoursMemoryAlready } from '../../src/operator/compacting-collection.js';

const ROOT = join(import.meta.dirname, '..', '..');

interface Collections {
  /** The old space's committed MiB before and after each collection. */
  committed: number[];
  /** The process's resident MiB likewise. */
  rss: number[];
}

async function collections(kind: 'compacting' | 'plain'): Promise<Collections> {
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
  return JSON.parse(stdout) as Collections;
}

const givenBack = (series: number[]): number => (series[0] ?? 0) - (series[series.length - 1] ?? 0);

describe('the heap settle collection', () => {
  it('gives back fragmented old-space pages that plain full collections keep, to the system', async () => {
    const plain = await collections('plain');
    const compacting = await collections('compacting');
    expect(givenBack(plain.committed)).toBeLessThan(5);
    expect(givenBack(compacting.committed)).toBeGreaterThan(20);
    // Resident memory too: V8 12 would otherwise keep the freed pages in its pool.
    expect(givenBack(compacting.rss)).toBeGreaterThan(20);
  }, 60_000);

  it("uses V8 12's last-resort collection where it exists, else favours memory for one collection", () => {
    const calls: string[] = [];
    const gc = (options?: object): void => void calls.push(`gc ${JSON.stringify(options ?? {})}`);
    const setFlags = (flags: string): void => void calls.push(flags);
    compactingCollection({ gc, v8Major: 12, alreadyFavoursMemory: false, setFlags })();
    expect(calls.splice(0)).toEqual(['gc {"type":"major","execution":"sync","flavor":"last-resort"}']);
    compactingCollection({ gc, v8Major: 11, alreadyFavoursMemory: false, setFlags })();
    expect(calls.splice(0)).toEqual(['--optimize-for-size', 'gc {}', '--no-optimize-for-size']);
    compactingCollection({ gc, v8Major: 11, alreadyFavoursMemory: true, setFlags })();
    expect(calls.splice(0)).toEqual(['gc {}']);
  });

  it('leaves the flag alone in a process started favouring memory', () => {
    expect(favoursMemoryAlready(['--expose-gc', '--optimize-for-size'], undefined)).toBe(true);
    expect(favoursMemoryAlready([], '--max-old-space-size=512 --optimize_for_size')).toBe(true);
    expect(favoursMemoryAlready(['--expose-gc'], '--max-semi-space-size=4')).toBe(false);
    expect(favoursMemoryAlready([], undefined)).toBe(false);
  });
});
