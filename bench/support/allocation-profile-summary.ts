// `npx tsx bench/support/allocation-profile-summary.ts FILE.heapprofile [--top 30]`: what an
// allocation profile (bench:steady --allocation-profile) says, as text: the bytes allocated in
// all, by function (its own allocations) and by source file (each file once per stack, so a
// file's figure includes what the functions it called allocated).
import { parseArgs } from 'node:util';
import { allocatedBytes, readAllocationProfile, type AllocationNode } from './allocation-profile.js';
import { frameName, shortUrl } from './profile-frames.js';

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '30' } },
  allowPositionals: true,
});
const file = positionals[0];
if (file === undefined) {
  process.stderr.write(
    'Usage: npx tsx bench/support/allocation-profile-summary.ts FILE.heapprofile [--top N]\n',
  );
  process.exit(2);
}
const top = Number(values.top);
const profile = await readAllocationProfile(file);
const total = allocatedBytes(profile);

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
const walk = (node: AllocationNode, filesAbove: ReadonlySet<string>): void => {
  const name = frameName(node);
  byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
  // A frame without a source (the microtask loop, a builtin) names no file.
  const url = shortUrl(node.callFrame.url);
  const files = url === '' ? filesAbove : new Set(filesAbove).add(url);
  for (const seen of files) byFile.set(seen, (byFile.get(seen) ?? 0) + node.selfSize);
  for (const child of node.children ?? []) walk(child, files);
};
// The root stands for no function: its children are where allocation happened.
for (const child of profile.head.children ?? []) walk(child, new Set());

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(2).padStart(9)} MB`;
const share = (bytes: number): string => `${((100 * bytes) / total).toFixed(1).padStart(5)}%`;
const lines = [`allocated ${megabytes(total).trim()} (sampled)`, '', 'by function (its own allocations)'];
for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  lines.push(`${share(bytes)} ${megabytes(bytes)}  ${name}`);
}
lines.push('', 'by file (each file once per stack)');
for (const [name, bytes] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  lines.push(`${share(bytes)} ${megabytes(bytes)}  ${name}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
