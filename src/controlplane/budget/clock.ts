// Time and randomness are injected into the budget and the client so that tests can drive
// refills, Retry-After blocks and backoff with a fake clock instead of sleeping. The shape
// matches the runtime's Clock (src/runtime/clock.ts) so the operator can pass its own, but it
// is declared here because the control-plane layer must not depend on the runtime.

import { abortableDelay } from '../../signals/abortable-delay.js';

export interface Clock {
  /** Milliseconds; only differences are used, so any monotonic-enough origin will do. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Returns a number in [0, 1), like Math.random. */
export type RandomSource = () => number;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    // A pending wait must never keep a process alive on its own.
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class AbortedError extends Error {
  constructor(message = 'the operation was aborted') {
    super(message);
    this.name = 'AbortError';
  }
}

/** Resolves after `delayMs` on `clock`; rejects with AbortedError when `signal` aborts first. */
export async function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  if ((await abortableDelay(clock, delayMs, signal)) === 'aborted') throw new AbortedError();
}
