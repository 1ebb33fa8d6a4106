// What a reconcile pass asks for next: the one closed result type of every controller, in
// the spirit of kube-rs's `Action` and controller-runtime's `Result`. Four answers, no flags
// to combine:
//   awaitChange   done: forget the key's backoff; the next watch event brings it back
//   requeueAfter  a poll: forget the backoff and look again after `ms`
//   requeueNow    re-read and retry at once, without backoff (a 409: someone wrote first)
//   backoff       look again after the key's growing, per-key backoff; with `failure`, the
//                 pass failed: it counts in controller_runtime_reconcile_errors_total, and is
//                 logged by the controller unless the reconciler already said so itself
// A pass that throws is a bug, not a failure class: the controller turns it into a logged
// backoff with a failure, as controller-runtime does with a panic.

export interface PassFailure {
  /** Safe to log: no key, no secret value, no request body. */
  message: string;
  /** The reconciler has already logged it (with its own context): the controller does not repeat it. */
  logged?: boolean;
}

export type ReconcileResult =
  | { readonly kind: 'awaitChange' }
  | { readonly kind: 'requeueAfter'; readonly ms: number }
  | { readonly kind: 'requeueNow' }
  | { readonly kind: 'backoff'; readonly failure?: PassFailure };

export const awaitChange: ReconcileResult = Object.freeze({ kind: 'awaitChange' });
export const requeueNow: ReconcileResult = Object.freeze({ kind: 'requeueNow' });
/** Backoff without counting an error: something is not there yet, try again soon. */
export const backoff: ReconcileResult = Object.freeze({ kind: 'backoff' });

export function requeueAfter(ms: number): ReconcileResult {
  return { kind: 'requeueAfter', ms };
}

/** A failed pass: back off, count it, and (unless `logged`) let the controller log it. */
export function failed(failure: PassFailure | Error): ReconcileResult {
  return {
    kind: 'backoff',
    failure: failure instanceof Error ? { message: failure.message } : failure,
  };
}
