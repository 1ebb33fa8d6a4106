// A delay on an injected clock that ends early when a signal aborts, following the signal
// through its one shared listener (abort-fanout.ts). The runtime's sleep (which resolves on
// abort) and the control-plane client's (which rejects) are both this, each with its own Clock
// type: only the two timer functions are needed here.
import { onAbort } from './abort-fanout.js';

/** The part of a Clock a delay needs; the handle's type is the clock's own. */
export interface DelayTimers<Handle> {
  setTimeout(callback: () => void, delayMs: number): Handle;
  clearTimeout(handle: Handle): void;
}

/** Resolves 'elapsed' after `delayMs` on `timers`, or 'aborted' as soon as `signal` aborts (at once if it has). */
export function abortableDelay<Handle>(
  timers: DelayTimers<Handle>,
  delayMs: number,
  signal?: AbortSignal,
): Promise<'elapsed' | 'aborted'> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve('aborted');
      return;
    }
    const handle = timers.setTimeout(() => {
      unfollow?.();
      resolve('elapsed');
    }, delayMs);
    const unfollow =
      signal === undefined
        ? undefined
        : onAbort(signal, () => {
            timers.clearTimeout(handle);
            resolve('aborted');
          });
  });
}
