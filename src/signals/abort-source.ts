// What a request needs of whatever may cancel it: whether it has, why, and a call when it does.
// An AbortSignal is one (through abort-fanout.ts's one listener per signal); so is a request's
// deadline (request-deadline.ts), which need not make an AbortSignal of its own for it.
import { onAbort } from './abort-fanout.js';

export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  /**
   * Calls `callback` with the reason when this aborts, until the returned function is called.
   * Never calls back when already aborted: the caller checks `aborted` first.
   */
  onAbort(callback: (reason: unknown) => void): () => void;
}

/** `signal` as an AbortSource. */
export function abortSourceOf(signal: AbortSignal): AbortSource {
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason(): unknown {
      return signal.reason;
    },
    onAbort: (callback) => (signal.aborted ? () => undefined : onAbort(signal, callback)),
  };
}
