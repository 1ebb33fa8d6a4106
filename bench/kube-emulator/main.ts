// `npm run bench:kube-emulator -- [--objects 1000] [--writes 8000] [--watchers 2] [--runs 3]`
// The CPU the Kubernetes API emulator (`agent-operator emulate kube`, its own process) spends
// on the writes an operator makes: status merge patches of AgentDeployments (the CRD's schema,
// its CEL rules and field ownership included), each delivered to `--watchers` open watches
// (an operator's informer and, in bench:converge, the benchmark's own). On a 2-core machine
// the emulator shares the cores with the operator, so its cost per write is part of what
// bench:converge measures. Prints the emulator's CPU microseconds per write and the wall-clock
// rate, the median of `--runs` runs after a warm-up; compare two commits by running it in
// each, alternately.
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
import { cpuSecondsOf } from '../support/processes.js';
import { statusOfWrite } from './status-writes.js';

const { values } = parseArgs({
  options: {
    objects: { type: 'string' },
    writes: { type: 'string' },
    watchers: { type: 'string' },
    runs: { type: 'string' },
  },
});
const objects = positiveInteger(values.objects, 'objects', 1_000);
const writes = positiveInteger(values.writes, 'writes', 8_000);
const watchers = positiveInteger(values.watchers, 'watchers', 2);
const runs = positiveInteger(values.runs, 'runs', 3);
/** Writes in flight at once: the operator's 16 workers, about. */
const PARALLEL = 16;

/** Reads every event of an open watch until aborted, as an informer does; counts them. */
async function drain(
  events: AsyncIterable<{ type: string }>,
  signal: AbortSignal,
  seen: { events: number },
): Promise<void> {
  try {
    for await (const event of events) {
      if (event.type !== 'BOOKMARK') seen.events += 1;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

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

async function waitForEvents(seen: ReadonlyArray<{ events: number }>, target: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (seen.some((s) => s.events < target)) {
    if (performance.now() > deadline)
      throw new Error(`the watches saw ${seen.map((s) => s.events).join(', ')} of ${target} events`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const emulators = await Emulators.start({ revisionPhaseMs: 0 });
const abort = new AbortController();
try {
  const listenerId = await emulators.listenerId();
  const names = Array.from({ length: objects }, (_, i) => benchObjectName(i));
  await createAll(
    emulators.kube,
    names.map((name) => agentDeployment(name, listenerId)),
  );
  // The watches start after the creates: their events are the writes below.
  const { resourceVersion } = await emulators.kube.list(AGENT_DEPLOYMENTS, {
    namespace: BENCH_NAMESPACE,
    limit: 1,
  });
  // Open before the first write (a watch that connected late would have to replay them).
  const opened = await Promise.all(
    Array.from({ length: watchers }, () =>
      emulators.kube.watch(AGENT_DEPLOYMENTS, {
        namespace: BENCH_NAMESPACE,
        resourceVersion,
        signal: abort.signal,
      }),
    ),
  );
  const seen = opened.map(() => ({ events: 0 }));
  const streams = opened.map((events, i) => drain(events, abort.signal, seen[i] as { events: number }));
  let written = 0;
  const warmUp = Math.min(writes, 2_000);
  await writeRound(emulators.kube, names, written, warmUp);
  written += warmUp;
  await waitForEvents(seen, written);
  const pid = emulators.kubeProcess.pid;
  const cpuPerWrite: number[] = [];
  const perSecond: number[] = [];
  for (let run = 1; run <= runs; run += 1) {
    const cpuBefore = cpuSecondsOf(pid);
    const started = performance.now();
    await writeRound(emulators.kube, names, written, writes);
    written += writes;
    // Done when every watch has been sent every write: the fan-out is part of a write's cost.
    await waitForEvents(seen, written);
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
  abort.abort();
  await Promise.all(streams);
} finally {
  abort.abort();
  await emulators.close();
}
