// The image's program is compiled with tsconfig.image.json, which leaves the emulators, the
// demo and the development CLI out. `exclude` only decides where tsc starts: it still compiles
// whatever an included file imports, so an import of src/sim or src/demo from operator code
// would put emulator code back into the image. This compiles the production program the way
// the Dockerfile does and looks at what came out.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type RunResult } from '../packaging/support/run.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

describe('the production build (tsconfig.image.json, what the image holds)', () => {
  let outDir = '';
  let build: RunResult;
  let files: string[] = [];

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'production-build-'));
    build = await run(process.execPath, [TSC, '-p', 'tsconfig.image.json', '--outDir', outDir], {
      cwd: ROOT,
    });
    files = build.code === 0 ? await filesUnder(outDir) : [];
  }, 180_000);

  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('compiles on its own, without the emulators and the demo', () => {
    expect(build.stdout + build.stderr).toBe('');
    expect(build.code).toBe(0);
  });

  it('holds the operator and its production commands', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'cli.js',
        'operator/cli.js',
        'invoke/cli.js',
        'api/crds-cli.js',
        'connection-check/cli.js',
      ]),
    );
  });

  it('holds no emulator, demo or development-CLI file', () => {
    const development = files.filter(
      (f) => f.startsWith('sim/') || f.startsWith('demo/') || f.startsWith('dev-cli.'),
    );
    expect(development).toEqual([]);
  });
});
