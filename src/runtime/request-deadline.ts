// A deadline for one request that also follows a caller's signal, and lets go of both as soon
// as the request is over. AbortSignal.any([caller, AbortSignal.timeout(ms)]) does the same
// job, but in Node 20 the composite stays registered with the caller's signal (a weak entry
// pruned only after a collection) and the timeout's timer lives its whole term (30 s for a
// Kubernetes request that took 2 ms): per request, against long-lived signals such as a
// controller's or the leader elector's, that is garbage the old space has to carry.
//
// A caller's signal gets one listener however many of its requests are in flight
// (abort-fanout.ts). The deadline's own AbortSignal is made only when someone asks for it:
// in Node 20 an AbortController costs about 8 us to make and 770 bytes, and the Kubernetes
// transport, which makes one deadline per request, follows the deadline through `onAbort`
// instead (19% less CPU per request in bench:kube-transport, docs/benchmarks.md).
import { onAbort } from '../signals/abort-fanout.js';
import type { AbortSource } from '../signals/abort-source.js';

export class RequestDeadline implements AbortSource {
  private controller: AbortController | undefined;
  private ended: { reason: unknown } | undefined;
  private followers: Array<(reason: unknown) => void> | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly unfollow: (() => void) | undefined;

  /** Aborts when `caller` does (with its reason) or after `ms` (a TimeoutError). */
  constructor(caller: AbortSignal | undefined, ms: number) {
    if (caller?.aborted) {
      this.ended = { reason: caller.reason };
      return;
    }
    if (caller !== undefined) this.unfollow = onAbort(caller, (reason) => this.abort(reason));
    this.timer = setTimeout(
      () => this.abort(new DOMException(`request timed out after ${ms} ms`, 'TimeoutError')),
      ms,
    );
    // Like AbortSignal.timeout: a pending request's deadline does not keep the process alive.
    this.timer.unref();
  }

  /** An AbortSignal that aborts with the deadline (made on first use). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.ended !== undefined) this.controller.abort(this.ended.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.ended !== undefined;
  }

  get reason(): unknown {
    return this.ended?.reason;
  }

  onAbort(callback: (reason: unknown) => void): () => void {
    if (this.ended !== undefined) return () => undefined;
    // A wrapper of its own, so that one callback given twice is followed twice.
    const follower = (reason: unknown): void => callback(reason);
    (this.followers ??= []).push(follower);
    return () => {
      const index = this.followers?.indexOf(follower) ?? -1;
      if (index >= 0) this.followers?.splice(index, 1);
    };
  }

  /** The request is over: the timer and its place on the caller's listener go now, not at the deadline. */
  release(): void {
    clearTimeout(this.timer);
    this.unfollow?.();
  }

  private abort(reason: unknown): void {
    if (this.ended !== undefined) return;
    this.release();
    this.ended = { reason };
    this.controller?.abort(reason);
    const followers = this.followers ?? [];
    this.followers = undefined;
    for (const follower of followers) follower(reason);
  }
}
