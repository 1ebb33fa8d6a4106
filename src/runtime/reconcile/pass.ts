// One reconcile pass, the same shape for every controller (kube-rs's reconcile/error_policy,
// Crossplane's managed reconciler):
//
//   observe → decide → [read → decide]… → perform → ReconcileResult
//                                            ↘ failure → errorPolicy (once) → ReconcileResult
//
// `observe` reads what the pass needs from caches and memory (undefined: nothing to reconcile,
// e.g. the object is gone; a failure goes to the error policy); `decide` is pure; a decision may ask for one more read before it
// is final (at most `maxReads`); `perform` does one thing and answers a result or a failure
// value; the error policy turns a failure into a result, in one place. The signal is checked
// between the steps: a pass whose leadership ended (or whose process stops) does nothing more.
import { awaitChange, backoff, type ReconcileResult } from './result.js';

/** What `perform` answers: the next visit, or a failure for the error policy. */
export type Performed<Failure> = ReconcileResult | { readonly kind: 'failure'; readonly failure: Failure };

/** What `observe` answers: the facts, a failure to read them (for the error policy), or nothing to do. */
export type Observation<Facts, Failure> = { facts: Facts } | { failure: Failure } | undefined;

export interface Pass<Facts, Action, Failure> {
  observe(signal: AbortSignal): Promise<Observation<Facts, Failure>> | Observation<Facts, Failure>;
  decide(facts: Facts): Action;
  /** The facts after the read `action` asks for; undefined when `action` is not a read. */
  read?(action: Action, facts: Facts, signal: AbortSignal): Promise<Facts> | undefined;
  perform(action: Action, facts: Facts, signal: AbortSignal): Promise<Performed<Failure>>;
  errorPolicy(failure: Failure, signal: AbortSignal): Promise<ReconcileResult> | ReconcileResult;
  /** Reads a pass may make before it acts (default 4). */
  maxReads?: number;
  /** Told when a pass asked for more reads than allowed (a defect of decide). */
  onTooManyReads?(): void;
}

export function failure<Failure>(value: Failure): Performed<Failure> {
  return { kind: 'failure', failure: value };
}

export async function runPass<Facts, Action, Failure>(
  pass: Pass<Facts, Action, Failure>,
  signal: AbortSignal,
): Promise<ReconcileResult> {
  const observed = await pass.observe(signal);
  if (observed === undefined || signal.aborted) return awaitChange;
  if ('failure' in observed) return pass.errorPolicy(observed.failure, signal);
  let facts: Facts = observed.facts;
  const maxReads = pass.maxReads ?? 4;
  for (let reads = 0; reads <= maxReads; reads += 1) {
    if (signal.aborted) return awaitChange;
    const action = pass.decide(facts);
    const reading: Promise<Facts> | undefined = pass.read?.(action, facts, signal);
    if (reading !== undefined) {
      facts = await reading;
      continue;
    }
    const performed = await pass.perform(action, facts, signal);
    if (performed.kind !== 'failure') return performed;
    if (signal.aborted) return awaitChange;
    return pass.errorPolicy(performed.failure, signal);
  }
  if (signal.aborted) return awaitChange;
  pass.onTooManyReads?.();
  return backoff;
}
