// The README and the docs name files of this repository in backticks (`src/...`, `test/...`,
// the glossary's `runtime/...` under src). Files move (the controller-shape work moved a
// dozen), and a page that names a file that is gone sends its reader nowhere: every such name
// must be a file or folder of the checkout.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Written by the benchmarks, never committed (.gitignore). */
const GENERATED = ['bench/out'];

/** Folders the repository ignores (.gitignore): built, installed or written by runs. */
const UNTRACKED = new Set(['node_modules', 'dist', 'coverage', '.tools', '.demo', '.chaos-logs', '.git']);

/** Every file and folder of the checkout, relative to its root, but the untracked ones. */
function checkout(): Set<string> {
  const paths = new Set<string>();
  for (const top of readdirSync(ROOT)) {
    if (UNTRACKED.has(top)) continue;
    paths.add(top);
    if (!statSync(join(ROOT, top)).isDirectory()) continue;
    for (const name of readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' })) {
      paths.add(`${top}/${name.split(sep).join('/')}`);
    }
  }
  return paths;
}

function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs];
}

describe('file names in the README and docs', () => {
  it('name files the repository has', () => {
    const paths = checkout();
    const topLevel = new Set([...paths].filter((path) => !path.includes('/')));
    const underSrc = new Set(
      [...paths].filter((path) => /^src\/[^/]+$/.test(path)).map((path) => path.slice(4)),
    );
    const missing: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, name = ''] of text.matchAll(/`([A-Za-z0-9_.][A-Za-z0-9_./-]*\/[A-Za-z0-9_./-]*)`/g)) {
        const path = name.replace(/\/$/, '');
        const top = path.split('/')[0] ?? '';
        if (GENERATED.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) continue;
        if (topLevel.has(top) && top !== 'node_modules') {
          if (!paths.has(path)) missing.push(`${page}: ${path}`);
        } else if (underSrc.has(top) && path.endsWith('.ts') && !paths.has(`src/${path}`)) {
          missing.push(`${page}: ${path} (under src/)`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
