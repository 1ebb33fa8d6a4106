// Run by compacting-collection.test.ts under `node --expose-gc`: fills the old space with
// small objects, frees two in five of them scattered over every page (as a burst's survivors
// die), then runs `passes` collections of the kind named on the command line and prints the
// old space's committed megabytes and the process's RSS before and after each, as JSON.
import { getHeapSpaceStatistics } from 'node:v8';
import { compactingCollection, type ExposedGc } from '../../../src/operator/compacting-collection.js';

const kind = process.argv[2];
const passes = Number(process.argv[3] ?? '6');
const gc = (globalThis as { gc?: ExposedGc }).gc;
if (gc === undefined) throw new Error('run under node --expose-gc');

function oldSpaceCommittedMiB(): number {
  const space = getHeapSpaceStatistics().find((entry) => entry.space_name === 'old_space');
  return (space?.physical_space_size ?? 0) / 2 ** 20;
}

let kept: Array<{ index: number; label: string }> = [];
for (let index = 0; index < 1_000_000; index += 1) kept.push({ index, label: `object ${index}` });
gc();
gc();
// Every fifth object of each run of five is dropped twice over: 40% of each page dies.
kept = kept.filter((_object, index) => index % 5 >= 2);
gc();
const collect =
  kind === 'compacting' ? compactingCollection({ gc, alreadyFavoursMemory: false }) : () => gc();
const rssMiB = (): number => process.memoryUsage().rss / 2 ** 20;
const committed = [oldSpaceCommittedMiB()];
const rss = [rssMiB()];
for (let pass = 0; pass < passes; pass += 1) {
  collect();
  committed.push(oldSpaceCommittedMiB());
  rss.push(rssMiB());
}
process.stdout.write(`${JSON.stringify({ committed, rss, kept: kept.length })}\n`);
