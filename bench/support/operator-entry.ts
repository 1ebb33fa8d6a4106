// The operator exactly as `agent-operator run` starts it (the same `main`), plus a probe on
// the IPC channel so that a benchmark can ask for a full GC and the resident memory after
// it. Start it with `node --expose-gc --import tsx bench/support/operator-entry.ts <run flags>`.
import { getHeapSpaceStatistics } from 'node:v8';
import { main } from '../../src/operator/cli.js';
import { answerProfileMessage, isProfileMessage } from './profile-probe.js';

export interface ProbeAnswer {
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  /** Memory of C++ objects bound to JS objects (Buffers, sockets...). */
  externalBytes: number;
  arrayBuffersBytes: number;
  /** V8 heap spaces: name -> [committed physical bytes, used bytes]. */
  spaces: Record<string, [number, number]>;
}

process.on('message', (message: unknown) => {
  if (isProfileMessage(message)) {
    void answerProfileMessage(message).then((answer) => process.send?.(answer));
    return;
  }
  if (message !== 'gc') return;
  const collect = (globalThis as { gc?: () => void }).gc;
  // Two passes: the first may only move objects to the old generation.
  collect?.();
  collect?.();
  const memory = process.memoryUsage();
  const answer: ProbeAnswer = {
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    heapTotalBytes: memory.heapTotal,
    externalBytes: memory.external,
    arrayBuffersBytes: memory.arrayBuffers,
    spaces: Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [
        space.space_name,
        [space.physical_space_size, space.space_used_size] as [number, number],
      ]),
    ),
  };
  process.send?.(answer);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // The IPC channel would keep the process alive after a clean shutdown.
    process.disconnect?.();
  },
  (error: unknown) => {
    process.stderr.write(`operator: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
