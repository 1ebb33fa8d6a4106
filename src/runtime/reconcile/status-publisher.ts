// Status is written only when it changed, through the object port, and what a change means
// for the reader (an event for a condition that moved) is read off the same comparison, so
// that a pass which writes nothing says nothing.
import type { ObjectPort, PortObject, StatusWriteOptions, WriteOutcome } from './object-port.js';
import { failed, requeueNow, awaitChange, type ReconcileResult } from './result.js';
import { equalIgnoringUnset } from '../equal-ignoring-unset.js';

/** A status condition as every kind writes it (the kit needs only these fields). */
export interface ConditionLike {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export type Published<T> =
  /** Written: the object as the API server returned it. */
  | { kind: 'written'; object: T }
  /** Nothing changed: nothing was sent. */
  | { kind: 'unchanged'; object: T }
  | { kind: 'failed'; outcome: Extract<WriteOutcome<T>, { ok: false }> };

export interface PublishOptions<S> extends StatusWriteOptions {
  /** Whether two statuses differ for the reader (default: as stored documents; e.g. ignore a sync timestamp). */
  changed?: (before: S | undefined, after: S) => boolean;
}

export async function publishStatus<T extends PortObject>(
  port: ObjectPort<T>,
  object: T,
  status: NonNullable<T['status']>,
  signal: AbortSignal,
  options: PublishOptions<NonNullable<T['status']>> = {},
): Promise<Published<T>> {
  const changed = options.changed ?? differAsDocuments;
  if (!changed(object.status as NonNullable<T['status']> | undefined, status) || signal.aborted)
    return { kind: 'unchanged', object };
  const written = await port.patchStatus(object, status, signal, options);
  return written.ok ? { kind: 'written', object: written.value } : { kind: 'failed', outcome: written };
}

/**
 * What a failed write means for the pass, the same for every kind: the object is gone (its
 * deletion event ends the story), someone wrote first (re-read and retry at once: the port's
 * overlay means it is not our own write the cache is behind on), or the write failed (back off).
 */
export function afterFailedWrite(outcome: {
  reason: 'Conflict' | 'Gone' | 'Failed';
  message: string;
}): ReconcileResult {
  switch (outcome.reason) {
    case 'Gone':
      return awaitChange;
    case 'Conflict':
      return requeueNow;
    case 'Failed':
      return failed({ message: `write failed: ${outcome.message}` });
  }
}

/** The conditions of `after` whose status or reason (and, if asked, message) differ from `before`'s. */
export function conditionTransitions<C extends ConditionLike>(
  before: readonly C[] | undefined,
  after: readonly C[],
  options: { message?: boolean } = {},
): C[] {
  return after.filter((condition) => {
    const old = before?.find((candidate) => candidate.type === condition.type);
    return (
      old === undefined ||
      old.status !== condition.status ||
      old.reason !== condition.reason ||
      (options.message === true && old.message !== condition.message)
    );
  });
}

/**
 * The default: the documents differ as the API server would store them. Key order is not part
 * of that (a status rebuilt from the one read may set a field again and move it), and neither
 * is a field left undefined, which the merge patch does not send.
 */
function differAsDocuments(before: unknown, after: unknown): boolean {
  return !equalIgnoringUnset(before ?? {}, after);
}
