// The printed summary of a chaos run: the seed (to replay it), faults by kind, kills,
// workload counts, request figures, and every invariant with what diverged.
import { FD_GROWTH_SLACK, mib, MEMORY_GROWTH_FACTOR, MEMORY_GROWTH_SLACK_BYTES, MEMORY_WARMUP_MS } from './memory.js';
import type { ChaosOutcome } from './scenario.js';
import { rateLimitText } from './config.js';
import type { InvariantResult } from './invariants.js';

/** Every invariant of the run, convergence ones first. */
export function allInvariants(outcome: ChaosOutcome): InvariantResult[] {
  const { requests, crashes, memory } = outcome;
  const shutdown = outcome.operator.shutdown;
  const cleanShutdown = shutdown !== undefined && shutdown.code === 0 && !shutdown.forced;
  return [
    ...outcome.convergence,
    ...(outcome.leadership?.invariants ?? []),
    outcome.secrecy,
    {
      name: "the request rate never exceeded the budget (no 429 from the emulator's limiter)",
      ok: requests.limiter429 === 0,
      problems:
        requests.limiter429 === 0
          ? []
          : [`${requests.limiter429} requests over the limit were refused with 429`],
    },
    {
      name: 'no unhandled rejection or crash (every exit was one of our kills; SIGTERM exits 0)',
      ok: crashes.unexpectedExits.length === 0 && crashes.crashLines.length === 0 && cleanShutdown,
      problems: [
        ...(cleanShutdown
          ? []
          : [
              `the final SIGTERM did not end in a clean exit: ${JSON.stringify(outcome.operator.shutdown ?? 'not stopped')}`,
            ]),
        ...crashes.unexpectedExits.map(
          (exit) =>
            `pid ${exit.pid} exited on its own (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'}); last log lines:\n      ${exit.stderrTail.slice(-10).join('\n      ')}`,
        ),
        ...crashes.crashLines.slice(0, 10).map((line) => `log: ${line.slice(0, 400)}`),
      ],
    },
    {
      name: `memory and file descriptors flat (survivor's later half <= ${MEMORY_GROWTH_FACTOR}x earlier half + ${mib(MEMORY_GROWTH_SLACK_BYTES)}, fds <= earlier + ${FD_GROWTH_SLACK}, after ${MEMORY_WARMUP_MS / 1000} s warm-up)`,
      ok: memory.ok,
      problems: memory.problem ? [memory.problem] : [],
    },
  ];
}

export function formatSummary(outcome: ChaosOutcome): string {
  const { config, workload, requests, memory, operator } = outcome;
  const faults = [...outcome.faults.entries()].sort(([a], [b]) => a.localeCompare(b));
  const totalFaults = faults.reduce((sum, [, count]) => sum + count, 0);
  const lines = [
    '',
    '=== chaos summary ===',
    `seed ${config.seed} (replay with CHAOS_SEED=${config.seed} CHAOS_DURATION=${config.faultPhaseMs / 1000}s CHAOS_RATE_LIMIT=${config.rateLimit.count}/${config.rateLimit.windowSeconds})`,
    `fault phase ${(outcome.faultPhaseMs / 1000).toFixed(1)} s, settled ${(outcome.settleMs / 1000).toFixed(1)} s after faults stopped`,
    `when faults stopped: ${pending(outcome.atFaultStop)}`,
    ...outcome.atFaultStop.flatMap((result) =>
      result.problems.slice(0, 3).map((problem) => `    e.g. ${problem}`),
    ),
    `faults injected: ${totalFaults}`,
    ...faults.map(([kind, count]) => `  ${kind.padEnd(20)} ${count}`),
    `operator: ${operator.kills} SIGKILLs, ${operator.starts} processes, ${operator.warnings} warn/error log lines`,
    `objects: ${workload.created} created, ${workload.imageChanges} image changes, ${workload.secretRotations} secret rotations, ` +
      `${workload.deletedWithDelete} deleted (Delete), ${workload.deletedWithOrphan} deleted (Orphan), ${workload.liveAtEnd} live at the end; ` +
      `${workload.writeRetries} driver write retries`,
    `bad day: ${workload.rejectedCreated} rejected objects (unknown listener), ${workload.clashesCreated} name clashes across namespaces, ` +
      `${workload.suspends} suspends, ${workload.resumes} resumes, ${workload.deletedWhileSuspended} deleted while suspended`,
    `control plane: ${requests.total} requests, ${requests.throttled} answered 429 (${requests.injected429} injected, ${requests.limiter429} by the limiter); ` +
      `peak ${requests.peakPerWindow} requests in one ${rateLimitText(config.rateLimit)} window (the limit)`,
    `memory: survivor pid ${memory.survivorPid ?? 'n/a'}, ${memory.samples} samples, earlier half ${mib(memory.earlierMedianBytes)}, ` +
      `later half ${mib(memory.laterMedianBytes)}, limit ${mib(memory.limitBytes)}, peak ${mib(memory.peakBytes)}; ` +
      `open fds earlier half ${memory.earlierMedianFds ?? 'n/a'}, later half ${memory.laterMedianFds ?? 'n/a'}, peak ${memory.peakFds ?? 'n/a'}; ` +
      `whole run first half ${mib(memory.runFirstHalfMedianBytes)}, second half ${mib(memory.runSecondHalfMedianBytes)}`,
    ...leadershipLines(outcome),
    `logs: ${outcome.logDir} (operator${outcome.leadership ? '-a.log, operator-b' : ''}.log, workload.log, calls.log)`,
    'invariants:',
  ];
  for (const invariant of allInvariants(outcome)) {
    lines.push(`  [${invariant.ok ? 'ok' : 'FAILED'}] ${invariant.name}`);
    for (const problem of invariant.problems.slice(0, 30)) lines.push(`      - ${problem}`);
    if (invariant.problems.length > 30) lines.push(`      ... and ${invariant.problems.length - 30} more`);
  }
  return lines.join('\n');
}

/** Two replicas: each leader fault, who took over and how long the hand-over took. */
function leadershipLines(outcome: ChaosOutcome): string[] {
  const leadership = outcome.leadership;
  if (!leadership) return [];
  const seconds = (ms: number | undefined): string => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);
  const handOvers = (kind: string): string => {
    const times = leadership.faults.filter((f) => f.kind === kind && f.handOverMs !== undefined).map((f) => f.handOverMs ?? 0);
    return times.length === 0 ? 'none' : `${times.map((ms) => seconds(ms)).join(', ')}`;
  };
  return [
    `leadership: ${leadership.transitions} terms of leading; hand-over after SIGKILL ${handOvers('leader-sigkill')}; ` +
      `after SIGSTOP ${handOvers('leader-sigstop')}; after a renewal burst ${handOvers('kube-lease-renewal-burst')}`,
    ...(leadership.busiest
      ? [
          `  busiest ${outcome.config.rateLimit.windowSeconds} s of control-plane calls (sliding) from ${new Date(leadership.busiest.startMs).toISOString()}: ` +
            `${leadership.busiest.total}, by replica ${[...leadership.busiest.byCaller].map(([who, n]) => `${who} ${n}`).join(', ')}`,
        ]
      : []),
    ...leadership.faults.map((f) => {
      const detail =
        f.kind === 'leader-sigkill'
          ? `${f.midRollout ? 'mid-rollout' : 'no rollout under way'}`
          : f.kind === 'leader-sigstop'
            ? `paused ${seconds(f.pausedMs)}, ${f.writesAfterResume ?? 0} writes without the lease after SIGCONT`
            : `${seconds(f.burstMs)} of ${(f.statuses ?? []).join('/')}`;
      const to = f.to === undefined ? 'nobody' : f.to === f.from ? 'kept by the same replica' : `${f.to} after ${seconds(f.handOverMs)}`;
      return `  ${f.kind.padEnd(25)} ${f.from}: ${detail}; lease ${to}`;
    }),
  ];
}

function pending(results: readonly InvariantResult[]): string {
  const open = results.filter((result) => !result.ok);
  if (open.length === 0) return 'already converged';
  return open
    .map((result) => `${result.problems.length} pending for "${result.name.split(' (')[0]}"`)
    .join('; ');
}
