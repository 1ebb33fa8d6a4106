// No image can be built here, so the Dockerfile is read and its promises checked:
// multi-stage, pinned bases, production dependencies only, non-root, the contract's entry point.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/paths.js';
import { imageEnvironment } from '../../bench/support/image-node-flags.js';

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions with line continuations joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  return logical.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
}

interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

function stages(instructions: Instruction[]): Stage[] {
  const result: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args.split(/\s+/);
      result.push({ from: image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      result.at(-1)?.instructions.push(instruction);
    }
  }
  return result;
}

const text = await readFile(join(REPO_ROOT, 'Dockerfile'), 'utf8');
const instructions = parseDockerfile(text);
const allStages = stages(instructions);
const runtime = allStages.at(-1) as Stage;
const args = new Map(
  instructions
    .filter((i) => i.keyword === 'ARG' && i.args.includes('='))
    .map((i) => [i.args.slice(0, i.args.indexOf('=')), i.args.slice(i.args.indexOf('=') + 1)] as const),
);

function resolveImage(from: string): string {
  return from.replace(/^\$\{?(\w+)\}?$/, (_m, name: string) => args.get(name) ?? from);
}

function runtimeRuns(): string[] {
  return runtime.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
}

describe('Dockerfile', () => {
  it('is multi-stage: a build stage, then a separate runtime stage', () => {
    expect(allStages.length).toBeGreaterThanOrEqual(2);
    const build = allStages[0];
    expect(build?.instructions.some((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args))).toBe(true);
    expect(build?.instructions.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args))).toBe(
      true,
    );
  });

  it('pins every base image to an exact current-LTS Node release (no latest, no floating major)', () => {
    for (const stage of allStages) {
      const image = resolveImage(stage.from);
      if (allStages.some((s) => s.name === image)) continue;
      expect(image, stage.from).toMatch(
        /^(node:22\.\d+\.\d+-(bookworm|bookworm-slim)|gcr\.io\/distroless\/nodejs22-debian12:[\w.-]+)(@sha256:[a-f0-9]{64})?$/,
      );
      expect(image).not.toMatch(/:latest\b/);
    }
  });

  it('installs only production dependencies in the runtime stage, without install scripts', () => {
    const installs = runtimeRuns().filter((r) => /\bnpm (ci|install)\b/.test(r));
    expect(installs).toHaveLength(1);
    expect(installs[0]).toMatch(/--omit=dev/);
    expect(installs[0]).toMatch(/--ignore-scripts/);
  });

  it('copies only dist/ from the build stage, and never node_modules', () => {
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY');
    for (const copy of copies) expect(copy.args).not.toMatch(/node_modules/);
    const fromBuild = copies.filter((c) => c.args.includes('--from='));
    expect(fromBuild.map((c) => c.args.split(/\s+/)[1])).toEqual(['/src/dist']);
    const sources = copies
      .filter((c) => !c.args.includes('--from='))
      .flatMap((c) => c.args.split(/\s+/).slice(0, -1));
    expect(sources.sort()).toEqual(['crds', 'package-lock.json', 'package.json']);
  });

  it('runs as the non-root uid 65532 that the chart expects, with NODE_ENV=production', () => {
    const users = runtime.instructions.filter((i) => i.keyword === 'USER');
    expect(users.at(-1)?.args).toBe('65532:65532');
    expect(runtime.instructions.some((i) => i.keyword === 'ENV' && /NODE_ENV=production/.test(i.args))).toBe(
      true,
    );
  });

  it('fixes the trim threshold of glibc malloc in the runtime stage, which the benchmarks start the operator with too', () => {
    const settings = runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => i.args);
    expect(settings).toContain('MALLOC_TRIM_THRESHOLD_=131072');
    expect(imageEnvironment(text)).toMatchObject({
      NODE_ENV: 'production',
      MALLOC_TRIM_THRESHOLD_: '131072',
    });
    // A value that takes a build argument is the build's, not the benchmark's.
    expect(imageEnvironment(text)).not.toHaveProperty('AGENT_OPERATOR_COMMIT');
  });

  it('starts the operator through the CLI, with gc exposed for the heap settle and a small young generation: ENTRYPOINT node --expose-gc --max-semi-space-size=4 dist/cli.js, CMD run', () => {
    const last = (keyword: string) => runtime.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
    expect(JSON.parse(last('ENTRYPOINT') ?? 'null')).toEqual([
      'node',
      '--expose-gc',
      '--max-semi-space-size=4',
      'dist/cli.js',
    ]);
    expect(JSON.parse(last('CMD') ?? 'null')).toEqual(['run']);
  });

  it('has no HEALTHCHECK (Kubernetes ignores it) and says why', () => {
    expect(instructions.map((i) => i.keyword)).not.toContain('HEALTHCHECK');
    expect(text).toMatch(/#.*Kubernetes ignores Docker's HEALTHCHECK/);
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, history, tools, tests and local output out of the build context', async () => {
    const patterns = (await readFile(join(REPO_ROOT, '.dockerignore'), 'utf8'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    for (const required of [
      'node_modules',
      '.git',
      'test',
      'bench',
      '.tools',
      'docs',
      'dist',
      'charts',
      '.env',
    ]) {
      expect(patterns, required).toContain(required);
    }
    for (const needed of [
      'src',
      'crds',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
    ]) {
      expect(patterns, `${needed} is needed by the build`).not.toContain(needed);
    }
  });
});
