// The node flags the image starts the operator with (the Dockerfile's ENTRYPOINT, between
// `node` and the script), so that a benchmark measures the process as it ships: the heap
// settle needs --expose-gc, and V8's sizing flags change the memory figures.
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
