// Time is injected everywhere in the runtime so that tests can drive backoff, requeue-after,
// watchdogs and lease expiry with a fake clock instead of sleeping.

import { abortableDelay } from '../signals/abortable-delay.js';

export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    // A pending requeue or backoff must never keep a process alive on its own.
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Resolves after `delayMs` on `clock`, or at once when `signal` aborts (it never rejects:
 * callers check `signal.aborted` afterwards, which keeps shutdown paths free of try/catch).
 */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  return abortableDelay(clock, delayMs, signal).then(() => undefined);
}
