// Two operator processes with leader election, as two pods of the Deployment run: the same
// flags, `--leader-elect`, and each its own log file. A replica is found by the identity on
// the Lease (`<hostname>_<pid>`).
import { join } from 'node:path';
import { OperatorProcess, type OperatorLaunch, type RssSample, type UnexpectedExit } from './operator-process.js';
import { LEASE_NAMESPACE } from './lease-watch.js';

export const REPLICA_NAMES = ['a', 'b'] as const;

export class Replicas {
  readonly slots: OperatorProcess[];
  readonly logPaths: string[];

  constructor(launch: Omit<OperatorLaunch, 'logPath' | 'extraArgs'>, logDir: string) {
    this.logPaths = REPLICA_NAMES.map((name) => join(logDir, `operator-${name}.log`));
    this.slots = this.logPaths.map(
      (logPath) =>
        new OperatorProcess({
          ...launch,
          logPath,
          extraArgs: ['--leader-elect', '--leader-election-namespace', LEASE_NAMESPACE],
        }),
    );
  }

  startAll(): void {
    for (const slot of this.slots) slot.start();
  }

  byIdentity(identity: string | undefined): OperatorProcess | undefined {
    return identity === undefined ? undefined : this.slots.find((slot) => slot.identity === identity);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.stop()));
  }

  sampleRss(): void {
    for (const slot of this.slots) void slot.sampleRss();
  }

  get starts(): number {
    return this.slots.reduce((sum, slot) => sum + slot.starts, 0);
  }

  get kills(): number {
    return this.slots.reduce((sum, slot) => sum + slot.kills, 0);
  }

  get warnings(): number {
    return this.slots.reduce((sum, slot) => sum + slot.warnings, 0);
  }

  get unexpectedExits(): UnexpectedExit[] {
    return this.slots.flatMap((slot) => slot.unexpectedExits);
  }

  get crashLines(): string[] {
    return this.slots.flatMap((slot) => slot.crashLines);
  }

  /** The clean SIGTERM of every replica: the first that was not clean, else the first. */
  get shutdown(): OperatorProcess['shutdown'] {
    const all = this.slots.map((slot) => slot.shutdown);
    return all.find((exit) => exit === undefined || exit.code !== 0 || exit.forced) ?? all[0];
  }

  /**
   * Memory is judged on the replica whose last process is the oldest: it lived through the
   * most of the run (kills stop at half time, like in the one-replica run).
   */
  survivorSamples(): RssSample[] {
    const lastPid = (slot: OperatorProcess): number | undefined => slot.rssSamples[slot.rssSamples.length - 1]?.pid;
    const firstSampleOfLast = (slot: OperatorProcess): number =>
      slot.rssSamples.find((sample) => sample.pid === lastPid(slot))?.atMs ?? Number.POSITIVE_INFINITY;
    const oldest = [...this.slots].sort((x, y) => firstSampleOfLast(x) - firstSampleOfLast(y))[0];
    return oldest?.rssSamples ?? [];
  }
}
