// The faults that only two replicas have: the leader killed during a rollout, the leader
// frozen past its lease and then let go on, and an API server that fails the lease's renewals.
// One at a time, in that order, over and over until the fault phase ends (kills only in its
// first half, as in the one-replica run). After each, the harness waits for the lease to
// move (or to stay, for a short renewal burst) and records how long the hand-over took.
import type { Stack } from '../operator/harness.js';
import { sleep, type FaultInjector } from './faults.js';
import type { InvariantResult } from './invariants.js';
import type { LeaseWatch } from './lease-watch.js';
import type { SeededRandom } from './random.js';
import type { Replicas } from './replicas.js';
import type { WriteJournal } from './write-journal.js';

/** The operator's lease duration (its default; the CLI does not change it). */
export const LEASE_DURATION_MS = 15_000;
/** The operator's renew deadline: a leader that cannot renew for this long stops leading. */
export const RENEW_DEADLINE_MS = 10_000;
/** How long a hand-over may take before the harness gives up waiting (and reports it). */
const HANDOVER_TIMEOUT_MS = 45_000;

export type LeaderFaultKind = 'leader-sigkill' | 'leader-sigstop' | 'kube-lease-renewal-burst';

export interface LeaderFaultRecord {
  kind: LeaderFaultKind;
  atMs: number;
  /** The leader when the fault began. */
  from: string;
  /** The next holder seen after the fault (undefined: the lease did not move). */
  to?: string;
  /** From the fault to the new holder's acquisition (its own stamp). */
  handOverMs?: number;
  /** SIGKILL: whether a rollout (latest revision not yet active) was under way at the kill. */
  midRollout?: boolean;
  /** SIGSTOP: how long it was frozen, and its control-plane writes from SIGCONT until the run ends. */
  pausedMs?: number;
  resumedAtMs?: number;
  writesAfterResume?: number;
  /** Renewal burst: how long, and which statuses. */
  burstMs?: number;
  statuses?: number[];
}

export class LeaderChaos {
  readonly records: LeaderFaultRecord[] = [];
  /** Problems the loop met (no leader to fault, a hand-over that never came). */
  readonly problems: string[] = [];

  constructor(
    private readonly stack: Stack,
    private readonly replicas: Replicas,
    private readonly leases: LeaseWatch,
    private readonly faults: FaultInjector,
    private readonly random: SeededRandom,
  ) {}

  async run(running: () => boolean, killsUntil: number): Promise<void> {
    const order: LeaderFaultKind[] = ['leader-sigkill', 'leader-sigstop', 'kube-lease-renewal-burst'];
    for (let step = 0; ; step++) {
      await sleep(this.random.int(1_000, 3_000));
      if (!running()) return;
      const kind = order[step % order.length] ?? 'leader-sigstop';
      if (kind === 'leader-sigkill' && Date.now() >= killsUntil) continue;
      // A kill or a freeze hits the leader with work in hand: a rollout under way (waited for
      // a little), so that the kill cuts it and the frozen leader resumes mid-work.
      const midRollout = kind === 'kube-lease-renewal-burst' ? false : await this.awaitRollout(15_000);
      const leader = await this.awaitLeader(running);
      if (leader === undefined) return;
      if (kind === 'leader-sigkill') await this.killLeader(leader, midRollout);
      else if (kind === 'leader-sigstop') await this.pauseLeader(leader);
      else await this.renewalBurst(leader);
    }
  }

  /** After the run: each paused leader's writes from SIGCONT on (it had lost its lease). */
  countWritesAfterResume(journal: WriteJournal): void {
    for (const record of this.records) {
      if (record.kind === 'leader-sigstop' && record.resumedAtMs !== undefined) {
        record.writesAfterResume = journal
          .writesBy(record.from, record.resumedAtMs)
          .filter((call) => !this.leases.heldBy(record.from, call.atMs)).length;
      }
    }
  }

  /** The invariant on the pauses: a leader that resumes after losing its lease writes nothing. */
  pausedLeadersSilent(): InvariantResult {
    const problems = this.records
      .filter((record) => record.kind === 'leader-sigstop' && (record.writesAfterResume ?? 0) > 0)
      .map(
        (record) =>
          `${record.from} (paused ${record.pausedMs ?? '?'} ms) made ${record.writesAfterResume ?? 0} control-plane write(s) after SIGCONT without the lease`,
      );
    return {
      name: 'a leader paused past its lease steps down on resuming, without a write',
      ok: problems.length === 0 && this.problems.length === 0,
      problems: [...problems, ...this.problems],
    };
  }

  /** A leader the harness can act on: its holder is one of the running, unpaused replicas. */
  private async awaitLeader(running: () => boolean): Promise<string | undefined> {
    const deadline = Date.now() + HANDOVER_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const holder = this.leases.holder;
      if (holder !== undefined && this.replicas.byIdentity(holder) && this.replicas.slots.every((s) => s.pid)) {
        return holder;
      }
      if (!running()) return undefined;
      await sleep(100);
    }
    this.problems.push(`no replica held the lease for ${HANDOVER_TIMEOUT_MS / 1000} s`);
    return undefined;
  }

  private async killLeader(leader: string, midRollout: boolean): Promise<void> {
    const slot = this.replicas.byIdentity(leader);
    if (!slot) return;
    const atMs = Date.now();
    this.faults.note('leader-sigkill');
    await slot.kill();
    await sleep(this.random.int(0, 1_500));
    slot.start();
    const record: LeaderFaultRecord = { kind: 'leader-sigkill', atMs, from: leader, midRollout };
    this.records.push(record);
    await this.awaitHandOver(record);
  }

  private async pauseLeader(leader: string): Promise<void> {
    const slot = this.replicas.byIdentity(leader);
    if (!slot) return;
    // Past the lease by 2-6 s at least, and until the standby has taken over (it sees the
    // lease expire 15 s after it last saw it change, and tries every 2 s), at most 30 s:
    // the resumed leader meets a lease that is someone else's.
    const minPauseMs = LEASE_DURATION_MS + this.random.int(2_000, 6_000);
    const atMs = Date.now();
    this.faults.note('leader-sigstop');
    slot.pause();
    const record: LeaderFaultRecord = { kind: 'leader-sigstop', atMs, from: leader };
    this.records.push(record);
    const handOver = this.awaitHandOver(record);
    await sleep(minPauseMs);
    await Promise.race([handOver, sleep(LEASE_DURATION_MS + 15_000 - minPauseMs)]);
    record.resumedAtMs = Date.now();
    record.pausedMs = record.resumedAtMs - atMs;
    slot.resume();
    await handOver;
  }

  private async renewalBurst(leader: string): Promise<void> {
    // Short: under the renew deadline, the leader keeps the lease. Long: past it, the leader
    // stops leading before the lease could expire for the standby.
    const burstMs = this.random.chance(0.5)
      ? this.random.int(3_000, RENEW_DEADLINE_MS - 3_000)
      : this.random.int(RENEW_DEADLINE_MS + 1_000, LEASE_DURATION_MS - 1_000);
    const statuses = this.random.pick([[503], [429], [500, 503]]);
    const atMs = Date.now();
    const record: LeaderFaultRecord = { kind: 'kube-lease-renewal-burst', atMs, from: leader, burstMs, statuses };
    this.records.push(record);
    await this.faults.leaseRenewalBurst(burstMs, statuses);
    // Who holds the lease once the API server answers again: the same leader (a short burst)
    // or, after a long one, whoever acquires it first.
    const next = await this.leases.nextHolder(undefined, Date.now(), HANDOVER_TIMEOUT_MS);
    if (!next) {
      this.problems.push(`after a ${burstMs} ms renewal burst, nobody held the lease within ${HANDOVER_TIMEOUT_MS / 1000} s`);
      return;
    }
    record.to = next.holder;
    if (next.holder !== leader) record.handOverMs = next.acquireTime - atMs;
  }

  private async awaitHandOver(record: LeaderFaultRecord): Promise<void> {
    const next = await this.leases.nextHolder(record.from, record.atMs, HANDOVER_TIMEOUT_MS);
    if (!next) {
      this.problems.push(`${record.kind} of ${record.from}: no other replica took the lease within ${HANDOVER_TIMEOUT_MS / 1000} s`);
      return;
    }
    record.to = next.holder;
    record.handOverMs = next.acquireTime - record.atMs;
  }

  private async awaitRollout(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const deployments = await this.stack.deployments();
      if (deployments.some((d) => d.latest_revision_id !== null && d.latest_revision_id !== d.active_revision_id)) {
        return true;
      }
      await sleep(50);
    }
    return false;
  }
}
