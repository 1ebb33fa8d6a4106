// A deadline for one request that also follows a caller's signal, and lets go of both as soon
// as the request is over. AbortSignal.any([caller, AbortSignal.timeout(ms)]) does the same
// job, but in Node 20 the composite stays registered with the caller's signal (a weak entry
// pruned only after a collection) and the timeout's timer lives its whole term (30 s for a
// Kubernetes request that took 2 ms): per request, against long-lived signals such as a
// controller's or the leader elector's, that is garbage the old space has to carry.
//
// A caller's signal gets one listener however many of its requests are in flight
// (abort-fanout.ts).
import { onAbort } from '../signals/abort-fanout.js';

export class RequestDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly unfollow: (() => void) | undefined;

  /** Aborts when `caller` does (with its reason) or after `ms` (a TimeoutError). */
  constructor(caller: AbortSignal | undefined, ms: number) {
    if (caller?.aborted) {
      this.controller.abort(caller.reason);
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

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The request is over: the timer and its place on the caller's listener go now, not at the deadline. */
  release(): void {
    clearTimeout(this.timer);
    this.unfollow?.();
  }

  private abort(reason: unknown): void {
    this.release();
    this.controller.abort(reason);
  }
}
