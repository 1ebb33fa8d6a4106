// The ExampleDeletion reconciler: find the examples (the ids, or the search as of the object's
// creation time unless asOf says otherwise), delete them in batches of at most 1000 with
// status written after each, then search again to verify. Example deletion takes effect at
// once, so there is no slow schedule. On resume after a crash the ids form continues after the
// recorded batch; the search form searches again, which no longer finds what was deleted.
// Every step that calls the platform first asks whether the object's connection allows it. A
// dry run counts and ends; maxMatches is checked against the count before the first delete.
import type { Logger } from 'pino';
import type { ExampleDeletionObject, ExampleDeletionStatus } from '../../api/deletion/index.js';
import { matchingExampleIds, remainingExampleIds, submitInBatches } from '../../platformdata/index.js';
import { MAX_IDS_PER_DELETE } from '../../platformdata/routes.js';
import { awaitChange, failed, type ReconcileResult } from '../../runtime/reconcile/result.js';
import type { PhaseState } from '../deletion/conditions.js';
import {
  DEFAULT_DELETION_TIMINGS,
  type DeletionKubePort,
  type DeletionPlatformClient,
  type DeletionTimings,
  type PlatformAccess,
} from '../deletion/ports.js';
import { publishBlocked } from '../deletion/blocked.js';
import {
  countBound,
  dryRunOutcome,
  publishWithoutDeleting,
  tooManyMatches,
  withMatches,
  type Matches,
} from '../deletion/guards.js';
import { publishPhase, withPhase } from '../deletion/status.js';
import { decideExampleDeletion, type ExampleDeletionStep } from './decide.js';
import { failure, runPass, type Performed } from '../../runtime/reconcile/pass.js';
import { stoppedPassReason } from '../deletion/stopped-pass.js';
import { objectKey } from '../../runtime/kube/objects.js';

export interface ExampleDeletionReconcilerOptions {
  kube: DeletionKubePort<ExampleDeletionObject>;
  platformFor(object: ExampleDeletionObject): PlatformAccess;
  clock: { now(): number };
  /** Aborted when the operator begins to stop: the submission ends after the batch in flight is recorded. */
  stopping?: AbortSignal;
  timings?: Partial<DeletionTimings>;
  logger: Logger;
}

type Result = Performed<Error>;

export class ExampleDeletionReconciler {
  private readonly timings: DeletionTimings;

  constructor(private readonly options: ExampleDeletionReconcilerOptions) {
    this.timings = { ...DEFAULT_DELETION_TIMINGS, ...options.timings };
  }

  reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    return runPass<ExampleDeletionObject, ExampleDeletionStep, Error>(
      {
        observe: () => {
          const object = this.options.kube.get(key);
          // A deleted object is left alone: its deletion ends the story.
          if (object === undefined || object.metadata.deletionTimestamp !== undefined) return undefined;
          return { facts: object };
        },
        decide: (object) => decideExampleDeletion(object.spec, object.status),
        perform: (step, object, passSignal) => this.perform(object, step, passSignal),
        // Every failure of a step is a failed pass: count it and back off.
        errorPolicy: (error) => failed(error),
      },
      signal,
    );
  }

  private async perform(
    object: ExampleDeletionObject,
    step: ExampleDeletionStep,
    signal: AbortSignal,
  ): Promise<Result> {
    if (step.kind === 'done') return awaitChange;
    // Every step from here calls the platform: first, may this object's connection do that?
    const access = this.options.platformFor(object);
    if (!access.ok) {
      const state = {
        phase: object.status?.phase ?? 'Pending',
        reason: access.reason,
        message: access.message,
      };
      const timing = { now: this.options.clock.now(), recheckMs: this.timings.blockedRecheckMs };
      return publishBlocked(this.options.kube, object, state, timing, signal);
    }
    if (step.kind === 'dryRun') return this.dryRun(object, access.client, signal);
    if (step.kind === 'verify') return this.verify(object, access.client, object.status ?? {}, signal);
    return this.submit(object, access.client, step.startAtBatch, signal);
  }

  /** Counts what the deletion would touch and ends, Completed (DryRun) or Failed (TooManyMatches). */
  private async dryRun(
    object: ExampleDeletionObject,
    client: DeletionPlatformClient,
    signal: AbortSignal,
  ): Promise<Result> {
    const named = await this.named(object, client, countBound(object.spec), signal);
    if (named instanceof Error) return failure(named);
    const state = dryRunOutcome(object.spec, named.matches, named.subject);
    return publishWithoutDeleting(this.options, object, state, named.matches, signal);
  }

  /**
   * The ids the deletion names and how many: the exampleIds (no platform call), or what the
   * search finds, up to `atMost`. On resume, what this object already deleted no longer
   * matches the search, but it counts.
   */
  private async named(
    object: ExampleDeletionObject,
    client: DeletionPlatformClient,
    atMost: number,
    signal: AbortSignal,
  ): Promise<{ ids: readonly string[]; matches: Matches; subject: string } | Error> {
    const { exampleIds } = object.spec;
    if (exampleIds !== undefined) {
      const matches = { count: exampleIds.length, atLeast: false };
      return { ids: exampleIds, matches, subject: 'example id(s) named' };
    }
    const ids = await this.search(object, client, atMost, signal);
    if (ids instanceof Error) return ids;
    const matches = { count: (object.status?.deleted ?? 0) + ids.length, atLeast: ids.length >= atMost };
    return { ids, matches, subject: 'example(s) match the search' };
  }

  private async submit(
    object: ExampleDeletionObject,
    client: DeletionPlatformClient,
    startAtBatch: number,
    signal: AbortSignal,
  ): Promise<Result> {
    const { spec } = object;
    // Without maxMatches the search form finds every match: it deletes them all.
    const atMost = spec.maxMatches === undefined ? Number.POSITIVE_INFINITY : countBound(spec);
    const named = await this.named(object, client, atMost, signal);
    if (named instanceof Error) return failure(named);
    const refused = tooManyMatches(spec, named.matches, named.subject);
    if (refused !== undefined)
      return publishWithoutDeleting(this.options, object, refused, named.matches, signal);
    const { ids } = named;
    const total = Math.ceil(ids.length / MAX_IDS_PER_DELETE);
    const state: PhaseState = {
      phase: 'Submitting',
      reason: 'Submitting',
      message: `deleting ${ids.length} example(s) (${spec.hardDelete ? 'hard' : 'soft'}) in ${total} request(s)`,
    };
    if (object.status?.phase !== 'Submitting')
      this.options.kube.event(object, 'Normal', 'Submitting', state.message);
    let status = this.withPhase(object, { ...object.status }, state);
    status = {
      ...withMatches(status, named.matches),
      batchesSent: startAtBatch,
      batchesTotal: total,
    };
    const first = await this.publish(object, status, signal);
    if (first !== undefined) return first;

    const stop = new AbortController();
    const stopWith = () => stop.abort();
    signal.addEventListener('abort', stopWith, { once: true });
    let stopped = false;
    try {
      const outcome = await submitInBatches(
        {
          ids,
          startAtBatch,
          signal: stop.signal,
          onBatchAccepted: async (batchesAccepted) => {
            const written = await this.options.kube.patchStatus(
              object,
              (status = { ...status, batchesSent: batchesAccepted }),
              signal,
            );
            if (!written.ok || this.options.stopping?.aborted === true) {
              stopped = true;
              stop.abort();
            }
          },
        },
        async (batch, batchSignal) => {
          const result = await client.deleteExamples(batch, spec.hardDelete, {
            priority: 'bulk',
            ...(batchSignal === undefined ? {} : { signal: batchSignal }),
          });
          if (result.ok) status = { ...status, deleted: (status.deleted ?? 0) + result.value.count };
          return result;
        },
      );
      const problem = stopped
        ? 'a status write failed, or the operator is stopping'
        : stoppedPassReason(signal);
      if (problem !== undefined) {
        this.options.logger.info({ key: objectKey(object), problem }, 'submission stopped');
        return awaitChange;
      }
      if (!outcome.ok) {
        const message = `batch ${(status.batchesSent ?? 0) + 1} of ${total} failed: ${outcome.error.message}`;
        this.options.kube.event(object, 'Warning', 'SubmitFailed', message);
        return failure(new Error(message));
      }
    } finally {
      signal.removeEventListener('abort', stopWith);
    }
    const now = new Date(this.options.clock.now()).toISOString();
    status = this.withPhase(
      object,
      status,
      {
        phase: 'Verifying',
        reason: 'Verifying',
        message: `${status.deleted ?? 0} example(s) deleted; verifying`,
      },
      { submittedAt: now },
    );
    this.options.kube.event(object, 'Normal', 'Submitted', status.message ?? '');
    const written = await this.publish(object, status, signal);
    return written ?? this.verify(object, client, status, signal);
  }

  private async verify(
    object: ExampleDeletionObject,
    client: DeletionPlatformClient,
    status: ExampleDeletionStatus,
    signal: AbortSignal,
  ): Promise<Result> {
    const { spec } = object;
    let remaining: number;
    if (spec.search !== undefined) {
      const found = await remainingExampleIds(
        client,
        {
          metadata: spec.search.metadata,
          createdBefore: this.asOf(object),
          now: new Date(this.options.clock.now()),
        },
        signal,
      );
      if (!found.ok) return failure(new Error(`verification search failed: ${found.error.message}`));
      remaining = found.value.length;
    } else {
      // The delete route answers how many of the ids it deleted: the ids form has no search.
      remaining = Math.max((status.matched ?? 0) - (status.deleted ?? 0), 0);
    }
    const now = this.options.clock.now();
    const state: PhaseState =
      remaining === 0
        ? {
            phase: 'Completed',
            reason: 'Verified',
            message: `${status.deleted ?? 0} example(s) deleted and verified`,
          }
        : {
            phase: 'Failed',
            reason: 'ExamplesRemain',
            message: `${remaining} example(s) still ${spec.search === undefined ? 'not deleted (unknown or already deleted ids)' : 'match the search'}`,
          };
    this.options.kube.event(object, remaining === 0 ? 'Normal' : 'Warning', state.phase, state.message);
    const next = this.withPhase(object, { ...status, verified: remaining === 0 }, state, {
      ...(remaining === 0 ? { verifiedAt: new Date(now).toISOString() } : {}),
    });
    return (await this.publish({ ...object, status }, next, signal)) ?? awaitChange;
  }

  /** The ids the search matches: examples created before asOf (default: the object's creation). */
  private async search(
    object: ExampleDeletionObject,
    client: DeletionPlatformClient,
    atMost: number,
    signal: AbortSignal,
  ): Promise<string[] | Error> {
    const search = object.spec.search;
    if (search === undefined) return [];
    const found = await matchingExampleIds(
      client,
      { metadata: search.metadata, asOf: this.asOf(object) },
      signal,
      atMost,
    );
    return found.ok ? found.value : new Error(`example search failed: ${found.error.message}`);
  }

  private asOf(object: ExampleDeletionObject): Date {
    return new Date(
      object.spec.search?.asOf ?? object.metadata.creationTimestamp ?? this.options.clock.now(),
    );
  }

  private withPhase(
    object: ExampleDeletionObject,
    status: ExampleDeletionStatus,
    state: PhaseState,
    extra: Partial<Record<'submittedAt' | 'verifiedAt', string | undefined>> = {},
  ): ExampleDeletionStatus {
    return withPhase(object, status, state, this.options.clock.now(), extra);
  }

  private publish(object: ExampleDeletionObject, status: ExampleDeletionStatus, signal: AbortSignal) {
    return publishPhase(this.options.kube, object, status, signal);
  }
}
