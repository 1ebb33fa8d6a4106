// The node flags the image starts the operator with (the Dockerfile's ENTRYPOINT, between
// `node` and the script) and the environment its runtime stage sets, so that a benchmark
// measures the process as it ships: the heap settle needs --expose-gc, and V8's sizing flags
// and glibc's malloc settings change the memory figures.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes.js';

export function imageNodeFlags(dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')): string[] {
  const entrypoints = dockerfile.split('\n').filter((line) => line.startsWith('ENTRYPOINT '));
  const last = entrypoints.at(-1);
  if (last === undefined) throw new Error('Dockerfile: no ENTRYPOINT');
  const words = JSON.parse(last.slice('ENTRYPOINT '.length)) as unknown;
  if (!Array.isArray(words) || words[0] !== 'node' || !words.every((word) => typeof word === 'string'))
    throw new Error(`Dockerfile: ENTRYPOINT is not ["node", ...flags, script]: ${last}`);
  const script = words.findIndex((word, index) => index > 0 && !String(word).startsWith('-'));
  return (words as string[]).slice(1, script < 0 ? undefined : script);
}

/**
 * The runtime stage's `ENV NAME=value` settings (after the Dockerfile's last FROM) whose value
 * is fixed; one that takes a build argument (`${VCS_REF}`) is left out.
 */
export function imageEnvironment(
  dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8'),
): Record<string, string> {
  const lines = dockerfile.split('\n');
  const runtimeStage = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')) + 1);
  const environment: Record<string, string> = {};
  for (const line of runtimeStage) {
    const setting = /^ENV ([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/.exec(line.trim());
    if (setting && !setting[2]!.includes('$')) environment[setting[1]!] = setting[2]!;
  }
  return environment;
}
