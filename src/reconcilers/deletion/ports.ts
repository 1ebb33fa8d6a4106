// What the deletion reconcilers need outside themselves, as ports: the kit's object port (cache,
// status writes, events), ConfigMap reads, and a platform data client for an object's connection.
import type { PlatformDataClient } from '../../platformdata/index.js';
import type { ObjectPort, PortObject } from '../../runtime/reconcile/object-port.js';

/** The kit's object port, for a deletion kind. */
export type DeletionKubePort<T extends PortObject> = ObjectPort<T>;

/** The platform data calls a deletion makes: deletes, and the reads that count and verify. */
export type DeletionPlatformClient = Pick<
  PlatformDataClient,
  'deleteTraces' | 'deleteTracesByMetadata' | 'queryRuns' | 'searchExamples' | 'deleteExamples'
>;

export type PlatformAccess =
  | { ok: true; client: DeletionPlatformClient; label: string }
  | { ok: false; reason: string; message: string };

/**
 * The platform data reads of tracing projects (sessions): by name, and by id to check a name;
 * and how soon a lookup that can wait finds the key's budget spare.
 */
export type SessionReader = Pick<
  PlatformDataClient,
  'findSessionByName' | 'readSession' | 'msUntilSessionLookupSpare'
>;

export type SessionAccess =
  { ok: true; client: SessionReader; label: string } | { ok: false; reason: string; message: string };

export interface DeletionTimings {
  /** Mean time between verification checks (jittered ±20%). */
  verifyIntervalMs: number;
  /** After this long since submission, surviving traces fail the deletion. */
  verifyDeadlineMs: number;
  /** How soon a blocked deletion (connection not ready, ConfigMap missing) looks again. */
  blockedRecheckMs: number;
}

export const DEFAULT_DELETION_TIMINGS: DeletionTimings = {
  verifyIntervalMs: 6 * 60 * 60_000,
  verifyDeadlineMs: 14 * 24 * 60 * 60_000,
  blockedRecheckMs: 30_000,
};

/** The interval ±20%, so that many deletions created together do not check together. */
export function jittered(intervalMs: number, random: () => number): number {
  return Math.round(intervalMs * (0.8 + 0.4 * random()));
}
