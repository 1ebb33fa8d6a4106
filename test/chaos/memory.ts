// "Memory flat": the operator's resident memory must not keep growing. Kills reset a
// process's memory, so growth is judged on one process that lives long: the survivor,
// the process running at the end (kills stop halfway through the fault phase, so it has run
// at least through the second half). Its samples after a warm-up (module loading, JIT,
// the first full list) are split in two halves by time; the median of the later half may
// exceed the median of the earlier half by at most the stated tolerance. Medians, not
// maxima, so that one sample taken just before a garbage collection does not decide.
import type { RssSample } from './operator-process.js';

/** Start-up growth that is not a leak: loading tsx and every module, JIT, the first lists. */
export const MEMORY_WARMUP_MS = 10_000;
/** Allowed growth from the earlier to the later half: 25% plus 24 MiB of slack for GC timing. */
export const MEMORY_GROWTH_FACTOR = 1.25;
export const MEMORY_GROWTH_SLACK_BYTES = 24 * 1024 * 1024;
/**
 * Open file descriptors may differ by this many from the earlier to the later half: sockets
 * come and go with keep-alive pools and watches; a leak grows without bound.
 */
export const FD_GROWTH_SLACK = 16;
/** Fewer samples than this per half and the verdict would be noise. */
const MIN_SAMPLES_PER_HALF = 5;

export interface MemoryVerdict {
  ok: boolean;
  survivorPid?: number;
  samples: number;
  earlierMedianBytes?: number;
  laterMedianBytes?: number;
  limitBytes?: number;
  peakBytes: number;
  /** Open file descriptors of the survivor: medians of the two halves, and the peak. */
  earlierMedianFds?: number;
  laterMedianFds?: number;
  peakFds?: number;
  /** Across the whole run, all processes: for the summary only. */
  runFirstHalfMedianBytes?: number;
  runSecondHalfMedianBytes?: number;
  problem?: string;
}

export function judgeMemory(
  samples: readonly RssSample[],
  runStartMs: number,
  runEndMs: number,
): MemoryVerdict {
  const peakBytes = Math.max(0, ...samples.map((s) => s.rssBytes));
  const runMiddle = (runStartMs + runEndMs) / 2;
  const run = {
    runFirstHalfMedianBytes: median(samples.filter((s) => s.atMs < runMiddle).map((s) => s.rssBytes)),
    runSecondHalfMedianBytes: median(samples.filter((s) => s.atMs >= runMiddle).map((s) => s.rssBytes)),
  };
  const last = samples[samples.length - 1];
  if (!last) return { ok: false, samples: 0, peakBytes, ...run, problem: 'no memory sample was taken' };
  const survivor = samples.filter((s) => s.pid === last.pid && s.uptimeMs >= MEMORY_WARMUP_MS);
  const first = survivor[0];
  const final = survivor[survivor.length - 1];
  if (!first || !final) {
    return {
      ok: false,
      survivorPid: last.pid,
      samples: 0,
      peakBytes,
      ...run,
      problem: 'the survivor has no sample after warm-up',
    };
  }
  const middle = (first.atMs + final.atMs) / 2;
  const earlier = survivor.filter((s) => s.atMs < middle).map((s) => s.rssBytes);
  const later = survivor.filter((s) => s.atMs >= middle).map((s) => s.rssBytes);
  const base = { survivorPid: last.pid, samples: survivor.length, peakBytes, ...run };
  if (earlier.length < MIN_SAMPLES_PER_HALF || later.length < MIN_SAMPLES_PER_HALF) {
    return {
      ok: false,
      ...base,
      problem: `too few samples to judge (${earlier.length} + ${later.length}; at least ${MIN_SAMPLES_PER_HALF} per half)`,
    };
  }
  const earlierMedianBytes = median(earlier) ?? 0;
  const laterMedianBytes = median(later) ?? 0;
  const limitBytes = earlierMedianBytes * MEMORY_GROWTH_FACTOR + MEMORY_GROWTH_SLACK_BYTES;
  const fdsOf = (list: readonly RssSample[]): number[] =>
    list.flatMap((s) => (s.fds === undefined ? [] : [s.fds]));
  const earlierMedianFds = median(fdsOf(survivor.filter((s) => s.atMs < middle)));
  const laterMedianFds = median(fdsOf(survivor.filter((s) => s.atMs >= middle)));
  const peakFds = fdsOf(survivor).length > 0 ? Math.max(...fdsOf(survivor)) : undefined;
  const memoryOk = laterMedianBytes <= limitBytes;
  const fdsOk =
    earlierMedianFds === undefined || laterMedianFds === undefined || laterMedianFds <= earlierMedianFds + FD_GROWTH_SLACK;
  const problems = [
    ...(memoryOk
      ? []
      : [`resident memory grew from ${mib(earlierMedianBytes)} to ${mib(laterMedianBytes)} (limit ${mib(limitBytes)})`]),
    ...(fdsOk
      ? []
      : [
          `open file descriptors grew from ${earlierMedianFds ?? '?'} to ${laterMedianFds ?? '?'} (limit ${(earlierMedianFds ?? 0) + FD_GROWTH_SLACK})`,
        ]),
  ];
  return {
    ok: memoryOk && fdsOk,
    ...base,
    earlierMedianBytes,
    laterMedianBytes,
    limitBytes,
    ...(earlierMedianFds === undefined ? {} : { earlierMedianFds }),
    ...(laterMedianFds === undefined ? {} : { laterMedianFds }),
    ...(peakFds === undefined ? {} : { peakFds }),
    ...(problems.length === 0 ? {} : { problem: problems.join('; ') }),
  };
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function mib(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
