// How the kube emulator copes with 10,000 custom resources: create, get, paged and full
// lists, merge patches. Prints medians of repeated runs (no assertions: speed lives here).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { startKubeEmulator } from '../../../src/sim/kube/index.js';

const COUNT = Number(process.env['BENCH_COUNT'] ?? 10_000);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed(runs: number, action: (i: number) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await action(i);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const emulator = await startKubeEmulator();
const base = `${emulator.url}/apis/example.com/v1/namespaces/default/widgets`;
const crd = yaml.load(await readFile(join(import.meta.dirname, '..', 'fixtures', 'widget-crd.yaml'), 'utf8'));
await fetch(`${emulator.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, { method: 'POST', body: JSON.stringify(crd), headers: { 'Content-Type': 'application/json' } });
const post = (i: number): Promise<Response> =>
  fetch(base, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `w${i}`, labels: { shard: String(i % 10) } }, spec: { size: i } }),
  });
const createStart = performance.now();
for (let i = 0; i < COUNT; i += 50) await Promise.all(Array.from({ length: Math.min(50, COUNT - i) }, (_, j) => post(i + j)));
const createMs = performance.now() - createStart;
const get = await timed(200, (i) => fetch(`${base}/w${(i * 37) % COUNT}`).then((r) => r.arrayBuffer()));
const page = await timed(20, () => fetch(`${base}?limit=500`).then((r) => r.arrayBuffer()));
const full = await timed(5, () => fetch(base).then((r) => r.arrayBuffer()));
const selected = await timed(5, () => fetch(`${base}?labelSelector=shard%3D3`).then((r) => r.arrayBuffer()));
const patch = await timed(200, (i) =>
  fetch(`${base}/w${i}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ spec: { size: COUNT + i } }) }).then((r) => r.arrayBuffer()),
);
console.log(`kube emulator with ${COUNT} widgets`);
console.log(`  create all (50 concurrent): ${createMs.toFixed(0)} ms (${((createMs / COUNT) * 1000).toFixed(0)} µs/object)`);
console.log(`  get one (median):           ${get.toFixed(2)} ms`);
console.log(`  list limit=500 (median):    ${page.toFixed(2)} ms`);
console.log(`  list all (median):          ${full.toFixed(2)} ms`);
console.log(`  list label-selected 10%:    ${selected.toFixed(2)} ms`);
console.log(`  merge patch (median):       ${patch.toFixed(2)} ms`);
await emulator.close();
