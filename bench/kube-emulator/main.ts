// `npm run bench:kube-emulator -- [--objects 1000] [--writes 8000] [--watchers 2] [--runs 3] [--creates [--warm]]`
// The CPU the Kubernetes API emulator (`agent-operator emulate kube`, its own process) spends
// on the writes an operator makes: status merge patches of AgentDeployments (the CRD's schema,
// its CEL rules and field ownership included), each delivered to `--watchers` open watches
// (an operator's informer and, in bench:converge, the benchmark's own). On a 2-core machine
// the emulator shares the cores with the operator, so its cost per write is part of what
// bench:converge measures. Prints the emulator's CPU microseconds per write and the wall-clock
// rate, the median of `--runs` runs after a warm-up; compare two commits by running it in
// each, alternately. `--creates` times creates instead: `--runs` rounds of `--objects` new
// AgentDeployments, 32 in flight as the benchmarks send them, each round on its own; the first
// is what a benchmark's burst meets without a warm-up, an emulator whose code V8 has not yet
// optimised; `--warm` runs the convergence benchmarks' warm-up before it.
import { parseArgs } from 'node:util';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { positiveInteger } from '../support/cli-args.js';
import {
  AGENT_DEPLOYMENTS,
  agentDeployment,
  benchObjectName,
  createAll,
  inParallel,
} from '../support/agent-deployments.js';
import { median, round } from '../support/emulator-stats.js';
import { BENCH_NAMESPACE, Emulators } from '../support/emulators.js';
import { warmUpKubeEmulator } from '../support/kube-emulator-warm-up.js';
import { openWatches, type OpenWatches } from '../support/open-watches.js';
import { cpuSecondsOf } from '../support/processes.js';
import { statusOfWrite } from './status-writes.js';

const { values } = parseArgs({
  options: {
    objects: { type: 'string' },
    writes: { type: 'string' },
    watchers: { type: 'string' },
    runs: { type: 'string' },
    creates: { type: 'boolean', default: false },
    warm: { type: 'boolean', default: false },
  },
});
const objects = positiveInteger(values.objects, 'objects', 1_000);
const writes = positiveInteger(values.writes, 'writes', 8_000);
const watchers = positiveInteger(values.watchers, 'watchers', 2);
const runs = positiveInteger(values.runs, 'runs', 3);
/** Writes in flight at once: the operator's 16 workers, about. */
const PARALLEL = 16;
/** Creates in flight at once: as the benchmarks create their objects (createAll's default). */
const CREATES_IN_PARALLEL = 32;

async function writeRound(kube: KubeClient, names: string[], first: number, count: number): Promise<void> {
  const sequence = Array.from({ length: count }, (_, i) => first + i);
  await inParallel(sequence, PARALLEL, async (write) => {
    const name = names[write % names.length] as string;
    await kube.mergePatchStatus(
      AGENT_DEPLOYMENTS,
      BENCH_NAMESPACE,
      name,
      statusOfWrite(name, write, names.length),
    );
  });
}

const emulators = await Emulators.start({ revisionPhaseMs: 0 });
let watches: OpenWatches | undefined;
try {
  const listenerId = await emulators.listenerId();
  const pid = emulators.kubeProcess.pid;
  if (values.creates) {
    // What the convergence benchmarks do before their clock starts: the first round then shows its effect.
    if (values.warm) await warmUpKubeEmulator(emulators.kube);
    // The watches first: their events are the creates.
    watches = await openWatches(emulators.kube, watchers);
    const cpuPerCreate: number[] = [];
    for (let batchNumber = 1; batchNumber <= runs; batchNumber += 1) {
      const first = (batchNumber - 1) * objects;
      const batch = Array.from({ length: objects }, (_, i) =>
        agentDeployment(benchObjectName(first + i), listenerId),
      );
      const cpuBefore = cpuSecondsOf(pid);
      const started = performance.now();
      await createAll(emulators.kube, batch, CREATES_IN_PARALLEL);
      await watches.waitForEvents(first + objects);
      const seconds = (performance.now() - started) / 1000;
      const micros = ((cpuSecondsOf(pid) - cpuBefore) * 1e6) / objects;
      cpuPerCreate.push(micros);
      process.stderr.write(
        `round ${batchNumber}${batchNumber === 1 ? (values.warm ? ' (after the warm-up)' : ' (a fresh emulator)') : ''}: ${round(micros, 0)} us of emulator CPU per create, ${round(objects / seconds, 0)} creates/s\n`,
      );
    }
    const [cold, ...warm] = cpuPerCreate;
    process.stdout.write(
      `${objects} creates x ${runs} rounds, ${watchers} watch(es), ${CREATES_IN_PARALLEL} in flight: ` +
        `${round(cold ?? 0, 0)} us of emulator CPU per create in the first round` +
        (warm.length > 0 ? `, ${round(median(warm), 0)} us in the others (median)` : '') +
        '\n',
    );
  } else {
    const names = Array.from({ length: objects }, (_, i) => benchObjectName(i));
    await createAll(
      emulators.kube,
      names.map((name) => agentDeployment(name, listenerId)),
    );
    // The watches start after the creates: their events are the writes below.
    watches = await openWatches(emulators.kube, watchers);
    let written = 0;
    const warmUp = Math.min(writes, 2_000);
    await writeRound(emulators.kube, names, written, warmUp);
    written += warmUp;
    await watches.waitForEvents(written);
    const cpuPerWrite: number[] = [];
    const perSecond: number[] = [];
    for (let run = 1; run <= runs; run += 1) {
      const cpuBefore = cpuSecondsOf(pid);
      const started = performance.now();
      await writeRound(emulators.kube, names, written, writes);
      written += writes;
      // Done when every watch has been sent every write: the fan-out is part of a write's cost.
      await watches.waitForEvents(written);
      const seconds = (performance.now() - started) / 1000;
      const micros = ((cpuSecondsOf(pid) - cpuBefore) * 1e6) / writes;
      cpuPerWrite.push(micros);
      perSecond.push(writes / seconds);
      process.stderr.write(
        `run ${run}: ${round(micros, 0)} us of emulator CPU per write, ${round(writes / seconds, 0)} writes/s\n`,
      );
    }
    process.stdout.write(
      `${writes} status writes x ${runs} runs over ${objects} AgentDeployments, ${watchers} watch(es), ${PARALLEL} in flight: ` +
        `${round(median(cpuPerWrite), 0)} us of emulator CPU per write, ${round(median(perSecond), 0)} writes/s (medians)\n`,
    );
  }
} finally {
  await watches?.close();
  await emulators.close();
}
