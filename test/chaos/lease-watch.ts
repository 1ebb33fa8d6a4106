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
   * Whether `identity` held the lease at `atMs` by its own clock: the newest record stamped
   * (renewTime) at or before `atMs` names it, and `atMs` is within leaseDuration of that
   * stamp. A renewal the harness missed only makes this stricter (an older stamp), never laxer;
   * with renewals every 2 s and a 15 s lease, a missed one or two cannot flip a verdict.
   */
  heldBy(identity: string, atMs: number): boolean {
    let newest: LeaseRecord | undefined;
    for (const record of this.records) {
      if (record.renewTime <= atMs && (!newest || record.renewTime >= newest.renewTime)) newest = record;
    }
    return newest !== undefined && newest.holder === identity && atMs <= newest.renewTime + newest.leaseDurationMs;
  }

  /** When `identity`'s lease ran out by its own clock: its last stamp plus the lease duration. */
  expiryOf(identity: string, afterMs: number): number | undefined {
    const own = this.records.filter((r) => r.holder === identity && r.renewTime <= afterMs);
    const last = own[own.length - 1];
    return last === undefined ? undefined : last.renewTime + last.leaseDurationMs;
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
