// One listener on a long-lived signal for any number of short-lived followers. A controller's
// signal is followed by every pass (16 workers) and every request of those passes at once; a
// listener each would pass the 10 at which Node prints a MaxListenersExceededWarning (a leak
// warning for what is not a leak: each follower goes when its pass or request ends). Every
// wait or request that follows a caller's signal goes through here (the runtime's and the
// control-plane client's sleeps, the rate budget's queue, the HTTP exchanges): a leaf with no
// imports, so that each layer may use it without depending on another.
// AbortSignal.any avoids the listeners but, in Node 20, keeps each composite registered with
// the signal until a collection prunes it (see request-deadline.ts).

interface Fanout {
  callbacks: Set<(reason: unknown) => void>;
  listener: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `callback` with the signal's reason when `signal` aborts, until the returned function
 * is called. The caller checks `signal.aborted` first: an aborted signal never calls back.
 */
export function onAbort(signal: AbortSignal, callback: (reason: unknown) => void): () => void {
  let fanout = fanouts.get(signal);
  if (fanout === undefined) {
    const callbacks = new Set<(reason: unknown) => void>();
    const listener = (): void => {
      fanouts.delete(signal);
      for (const follower of callbacks) follower(signal.reason);
      callbacks.clear();
    };
    fanout = { callbacks, listener };
    fanouts.set(signal, fanout);
    signal.addEventListener('abort', listener, { once: true });
  }
  const callbacks = fanout.callbacks;
  // A wrapper of its own, so that one callback given twice is followed twice.
  const follower = (reason: unknown): void => callback(reason);
  callbacks.add(follower);
  return () => {
    if (!callbacks.delete(follower) || callbacks.size > 0) return;
    const current = fanouts.get(signal);
    if (current?.callbacks !== callbacks) return;
    fanouts.delete(signal);
    signal.removeEventListener('abort', current.listener);
  };
}
