// Who held the lease, over time: the harness reads the operators' Lease every 100 ms (through
// the API server, faults included: a failed read is tried again on the next tick) and keeps
// every distinct record it saw. Each record carries the times its writer stamped with its own
// clock (renewTime, acquireTime); on one machine every replica's clock is the harness's.
import { LEASE_TYPE } from '../../src/runtime/leaderelection/lease-store.js';
import { parseMicroTime } from '../../src/runtime/leaderelection/micro-time.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import type { Stack } from '../operator/harness.js';

/** Where `--leader-elect` puts the Lease with `--leader-election-namespace default` and the default id. */
export const LEASE_NAMESPACE = 'default';
export const LEASE_NAME = 'agent-operator';
const POLL_MS = 100;

export interface LeaseRecord {
  /** '' when released. */
  holder: string;
  /** Epoch ms, the writer's clock. */
  renewTime: number;
  acquireTime: number;
  leaseDurationMs: number;
  transitions: number;
  /** When the harness first saw this record. */
  seenAt: number;
}

interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
}

export class LeaseWatch {
  readonly records: LeaseRecord[] = [];
  private readonly seen = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private reading = false;

  constructor(private readonly stack: Stack) {}

  start(): void {
    this.timer = setInterval(() => void this.read(), POLL_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The holder of the newest record seen ('' or undefined when nobody holds it). */
  get holder(): string | undefined {
    return this.records[this.records.length - 1]?.holder || undefined;
  }

  /** Waits until a record seen from `sinceMs` on names a holder other than `previous`. */
  async nextHolder(previous: string | undefined, sinceMs: number, timeoutMs: number): Promise<LeaseRecord | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.records.find((r) => r.seenAt >= sinceMs && r.holder !== '' && r.holder !== previous);
      if (found || Date.now() >= deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /**
   * Whether `identity` held the lease at `atMs` by its own clock. The term in force at `atMs`
   * is the record acquired last at or before it (a renewal keeps its term's acquireTime, so a
   * missed acquisition is known from the next renewal); it must be `identity`'s, and `atMs`
   * within the lease duration of that term's last stamp (renewTime) at or before `atMs`. A
   * renewal the harness missed only makes this stricter (an older stamp), never laxer; with
   * renewals every 2 s and a 15 s lease, a missed one or two cannot flip a verdict.
   */
  heldBy(identity: string, atMs: number): boolean {
    const term = this.termAt(atMs);
    if (term === undefined || term.holder !== identity) return false;
    return atMs <= this.lastStamp(term, atMs) + term.leaseDurationMs;
  }

  /** When `identity`'s lease ran out by its own clock, in its last term begun at or before `atMs`. */
  expiryOf(identity: string, atMs: number): number | undefined {
    const own = this.records.filter((r) => r.holder === identity && r.acquireTime <= atMs);
    const term = own.reduce<LeaseRecord | undefined>((last, r) => (!last || r.acquireTime > last.acquireTime ? r : last), undefined);
    return term === undefined ? undefined : this.lastStamp(term, atMs) + term.leaseDurationMs;
  }

  private termAt(atMs: number): LeaseRecord | undefined {
    let term: LeaseRecord | undefined;
    for (const record of this.records) {
      if (record.acquireTime <= atMs && (!term || record.acquireTime > term.acquireTime)) term = record;
    }
    return term;
  }

  private lastStamp(term: LeaseRecord, atMs: number): number {
    let stamp = term.acquireTime;
    for (const record of this.records) {
      if (record.holder === term.holder && record.acquireTime === term.acquireTime && record.renewTime <= atMs) {
        stamp = Math.max(stamp, record.renewTime);
      }
    }
    return stamp;
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      const lease = await this.stack.client.get<LeaseObject>(
        LEASE_TYPE,
        LEASE_NAMESPACE,
        LEASE_NAME,
        AbortSignal.timeout(1_000),
      );
      const key = lease.metadata.resourceVersion ?? '';
      if (this.seen.has(key)) return;
      this.seen.add(key);
      const spec = lease.spec ?? {};
      this.records.push({
        holder: spec.holderIdentity ?? '',
        renewTime: parseMicroTime(spec.renewTime) ?? 0,
        acquireTime: parseMicroTime(spec.acquireTime) ?? 0,
        leaseDurationMs: (spec.leaseDurationSeconds ?? 0) * 1000,
        transitions: spec.leaseTransitions ?? 0,
        seenAt: Date.now(),
      });
    } catch {
      // Not there yet, or a fault of the API server: the next tick reads again.
    } finally {
      this.reading = false;
    }
  }
}
