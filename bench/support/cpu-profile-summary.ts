// `npx tsx bench/support/cpu-profile-summary.ts FILE.cpuprofile [--top 30]`: where a CPU
// profile's time went, as text: self time by function and total (inclusive) time by source
// file, each as a share of the sampled time. Enough to compare two commits' profiles of the
// same benchmark without opening DevTools.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { frameName, shortUrl, type CallFrame } from './profile-frames.js';

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '30' } },
  allowPositionals: true,
});
const file = positionals[0];
if (file === undefined) {
  process.stderr.write('Usage: npx tsx bench/support/cpu-profile-summary.ts FILE.cpuprofile [--top N]\n');
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;

// Time per node from the samples (each sample's delta is the time until the next one).
const selfMs = new Map<number, number>();
const samples = profile.samples ?? [];
const deltas = profile.timeDeltas ?? [];
for (let i = 0; i < samples.length; i += 1) {
  const id = samples[i] as number;
  selfMs.set(id, (selfMs.get(id) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
}
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);


const total = [...selfMs.values()].reduce((a, b) => a + b, 0);
const selfByFunction = new Map<string, number>();
const inclusiveByFile = new Map<string, number>();
for (const [id, ms] of selfMs) {
  const node = byId.get(id);
  if (!node) continue;
  selfByFunction.set(frameName(node), (selfByFunction.get(frameName(node)) ?? 0) + ms);
  // Each file on the stack once: a recursive or re-entrant file is not counted twice.
  const files = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const url = byId.get(at)?.callFrame.url;
    if (url) files.add(shortUrl(url));
  }
  for (const f of files) inclusiveByFile.set(f, (inclusiveByFile.get(f) ?? 0) + ms);
}

const print = (title: string, table: Map<string, number>): void => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, ms] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((100 * ms) / total).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${name}\n`);
  }
};
process.stdout.write(`sampled ${total.toFixed(0)} ms\n`);
print('self time by function', selfByFunction);
print('total time by file (each file once per stack)', inclusiveByFile);
