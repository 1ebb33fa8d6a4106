// `npx tsx bench/support/heap-summary.ts FILE.heapsnapshot [--top 30]`: where a V8 heap
// snapshot's bytes are, as text: self size and count by node type and constructor name
// (object shapes by their constructor, strings, arrays, closures, code...). Self sizes, not
// retained sizes: enough to compare two commits, or N=1,000 with N=5,000, and see which
// kind of value grows with the objects.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string', default: '30' } },
  allowPositionals: true,
});
const file = positionals[0];
if (file === undefined) {
  process.stderr.write('Usage: npx tsx bench/support/heap-summary.ts FILE.heapsnapshot [--top N]\n');
  process.exit(2);
}
const heap = JSON.parse(await readFile(file, 'utf8')) as Snapshot;
const fields = heap.snapshot.meta.node_fields;
const typeNames = heap.snapshot.meta.node_types[0];
const stride = fields.length;
const typeAt = fields.indexOf('type');
const nameAt = fields.indexOf('name');
const sizeAt = fields.indexOf('self_size');

const groups = new Map<string, { bytes: number; count: number }>();
let total = 0;
for (let i = 0; i < heap.nodes.length; i += stride) {
  const type = typeNames[heap.nodes[i + typeAt] as number] ?? '?';
  const size = heap.nodes[i + sizeAt] as number;
  total += size;
  // Strings group by kind, not by their text; objects by constructor name.
  const name = type === 'object' || type === 'closure' ? (heap.strings[heap.nodes[i + nameAt] as number] ?? '?') : '';
  const key = name === '' ? `(${type})` : `${name} (${type})`;
  const group = groups.get(key) ?? { bytes: 0, count: 0 };
  group.bytes += size;
  group.count += 1;
  groups.set(key, group);
}
const top = Number(values.top);
process.stdout.write(`${(total / 1024 / 1024).toFixed(1)} MB in ${heap.nodes.length / stride} nodes\n`);
for (const [key, group] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
  process.stdout.write(
    `${(group.bytes / 1024 / 1024).toFixed(2).padStart(8)} MB ${String(group.count).padStart(9)}  ${key}\n`,
  );
}
