// Every control-plane call as the emulator saw it arrive, with the replica that sent it (the
// identity each operator puts in its User-Agent). The check it serves: no replica writes while
// it does not hold the lease.
import type { ApiCall } from '../../src/sim/controlplane/index.js';
import type { InvariantResult } from './invariants.js';
import type { LeaseWatch } from './lease-watch.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const IDENTITY = /^agent-operator \((.+)\)$/;

export interface JournalEntry extends ApiCall {
  /** The replica's leader-election identity; undefined when the User-Agent names none. */
  identity: string | undefined;
}

export class WriteJournal {
  readonly calls: JournalEntry[] = [];

  /** For the emulator's `onApiRequest`. */
  readonly record = (call: ApiCall): void => {
    this.calls.push({ ...call, identity: IDENTITY.exec(call.userAgent)?.[1] });
  };

  writes(): JournalEntry[] {
    return this.calls.filter((call) => WRITE_METHODS.has(call.method));
  }

  /**
   * The busiest span of `windowMs` (sliding, so it may exceed a fixed-window limit that was
   * kept), with each caller's share: shows whether two replicas spent the one key's budget
   * at once. For the summary, not a verdict.
   */
  busiest(windowMs: number): { startMs: number; total: number; byCaller: Map<string, number> } | undefined {
    const calls = [...this.calls].sort((a, b) => a.atMs - b.atMs);
    let best: { from: number; to: number } | undefined;
    for (let from = 0, to = 0; to < calls.length; to++) {
      while ((calls[from]?.atMs ?? 0) <= (calls[to]?.atMs ?? 0) - windowMs) from++;
      if (!best || to - from > best.to - best.from) best = { from, to };
    }
    if (!best) return undefined;
    const byCaller = new Map<string, number>();
    for (const call of calls.slice(best.from, best.to + 1)) {
      const who = call.identity ?? '(unnamed)';
      byCaller.set(who, (byCaller.get(who) ?? 0) + 1);
    }
    return { startMs: calls[best.from]?.atMs ?? 0, total: best.to - best.from + 1, byCaller };
  }

  /** One line per call, for the run's logs: when, who, what. */
  lines(): string {
    return this.calls
      .map((c) => `${new Date(c.atMs).toISOString()} ${c.identity ?? '(unnamed)'} ${c.method} ${c.route}\n`)
      .join('');
  }

  /** Writes by `identity` that arrived at or after `fromMs`. */
  writesBy(identity: string, fromMs: number): JournalEntry[] {
    return this.writes().filter((call) => call.identity === identity && call.atMs >= fromMs);
  }
}

/**
 * The rule, precisely: a write that *arrived* (≈ was sent: loopback, and injected latency is
 * applied after arrival) while its sender did not hold the lease by its own clock is a
 * violation: either the newest lease record stamped before it names someone else (or nobody),
 * or the sender's own last stamp plus the lease duration lies before it. A request sent just
 * before the lease ran out and answered after is allowed: it started while the lease was held.
 * A write that names no replica is a violation too: with two replicas, every call must say
 * who sent it.
 */
export function checkWritesUnderLease(journal: WriteJournal, leases: LeaseWatch): InvariantResult {
  const problems: string[] = [];
  for (const call of journal.writes()) {
    if (call.identity === undefined) {
      problems.push(`${call.method} ${call.route} at ${iso(call.atMs)} names no replica (User-Agent "${call.userAgent}")`);
    } else if (!leases.heldBy(call.identity, call.atMs)) {
      const expiry = leases.expiryOf(call.identity, call.atMs);
      problems.push(
        `${call.method} ${call.route} from ${call.identity} at ${iso(call.atMs)}` +
          (expiry === undefined
            ? ', which had never held the lease'
            : call.atMs > expiry
              ? `, ${call.atMs - expiry} ms after its lease ran out`
              : ', while the lease was not its own'),
      );
    }
  }
  return { name: 'no control-plane write from a replica that does not hold the lease', ok: problems.length === 0, problems };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
