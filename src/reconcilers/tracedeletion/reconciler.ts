// The TraceDeletion reconciler: decide (pure) -> one step -> publish status only when it
// changed. Submission writes status after every accepted batch, so that a crash resumes from
// the recorded batch index: no id is sent twice and none is skipped. Deleting the object while
// it submits stops further batches at the next status write (it finds the object gone);
// batches already accepted are not undone. Every step that calls the platform (a count, a
// submission, a verification) first asks whether the object's connection allows it.
// A dry run counts and ends; maxMatches is checked against the count before the first request.
import type { Logger } from 'pino';
import type { TraceDeletionObject, TraceDeletionStatus } from '../../api/deletion/index.js';
import {
  countTracesByMetadata,
  findSurvivingTraces,
  findTracesByMetadata,
  submitTraceDeletion,
} from '../../platformdata/index.js';
import type { Result } from '../../controlplane/client/errors.js';
import { awaitChange, failed, requeueAfter, type ReconcileResult } from '../../runtime/reconcile/result.js';
import type { PhaseState } from '../deletion/conditions.js';
import { publishBlocked } from '../deletion/blocked.js';
import {
  countBound,
  dryRunOutcome,
  matchesCounted,
  publishWithoutDeleting,
  tooManyMatches,
  withMatches,
  type Matches,
} from '../deletion/guards.js';
import { publishPhase, withPhase } from '../deletion/status.js';
import {
  DEFAULT_DELETION_TIMINGS,
  jittered,
  type DeletionKubePort,
  type DeletionPlatformClient,
  type DeletionTimings,
  type PlatformAccess,
} from '../deletion/ports.js';
import { MAX_IDS_PER_DELETE } from '../../platformdata/routes.js';
import { decideTraceDeletion, type TraceDeletionStep } from './decide.js';
import { failure, runPass, type Performed } from '../../runtime/reconcile/pass.js';
import { stoppedPassReason } from '../deletion/stopped-pass.js';
import { objectKey } from '../../runtime/kube/objects.js';
import { IdSourceChanged, traceIdsOf, type IdSource } from './trace-ids.js';
import { sessionTarget, type ProjectReferencePorts } from './project-reference.js';

/** How many surviving ids a Failed message names. */
const SURVIVORS_SHOWN = 5;

export interface TraceDeletionReconcilerOptions {
  kube: DeletionKubePort<TraceDeletionObject>;
  platformFor(object: TraceDeletionObject): PlatformAccess;
  /** A ConfigMap key's value; undefined when the ConfigMap or the key is missing. */
  configMapValue(
    namespace: string,
    name: string,
    key: string,
    signal: AbortSignal,
  ): Promise<string | undefined>;
  clock: { now(): number };
  /** AgentDeployments and their connections' sessions, for spec.agentDeploymentRef; absent: refused. */
  projectReference?: ProjectReferencePorts;
  /**
   * Aborted when the operator begins to stop: the submission ends after the batch in flight is
   * recorded, rather than being cut mid-request (a batch accepted but not recorded is sent again).
   */
  stopping?: AbortSignal;
  random?: () => number;
  timings?: Partial<DeletionTimings>;
  logger: Logger;
}

export class TraceDeletionReconciler {
  private readonly timings: DeletionTimings;
  private readonly random: () => number;
  /**
   * key -> batches this process recorded as accepted: the cache may not have the last status
   * write yet when a failed submission is retried, and resuming from it would send a batch twice.
   */
  private readonly recorded = new Map<string, { uid: string; batches: number }>();

  constructor(private readonly options: TraceDeletionReconcilerOptions) {
    this.timings = { ...DEFAULT_DELETION_TIMINGS, ...options.timings };
    this.random = options.random ?? Math.random;
  }

  reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    return runPass<TraceDeletionObject, TraceDeletionStep, Error>(
      {
        observe: () => {
          const object = this.options.kube.get(key);
          if (object === undefined) this.recorded.delete(key);
          // A deleted object is left alone: its deletion ends the story.
          if (object === undefined || object.metadata.deletionTimestamp !== undefined) return undefined;
          return { facts: object };
        },
        decide: (object) =>
          decideTraceDeletion(
            object.spec,
            object.status,
            this.options.clock.now(),
            this.timings.verifyDeadlineMs,
          ),
        perform: (step, object, passSignal) => this.perform(key, object, step, passSignal),
        // Every failure of a step is a failed pass: count it and back off.
        errorPolicy: (error) => failed(error),
      },
      signal,
    );
  }

  private async perform(
    key: string,
    object: TraceDeletionObject,
    step: TraceDeletionStep,
    signal: AbortSignal,
  ): Promise<Performed<Error>> {
    if (step.kind === 'done') return awaitChange;
    if (step.kind === 'wait') return requeueAfter(step.ms);
    // A session named by its AgentDeployment: resolved, and checked on the platform, first.
    const target = await sessionTarget(object, this.options.projectReference, signal);
    if (target.kind === 'error') return failure(target.error);
    if (target.kind === 'blocked') {
      const state = {
        phase: object.status?.phase ?? 'Pending',
        reason: target.reason,
        message: target.message,
      };
      return this.blocked(object, state, signal);
    }
    if (target.kind === 'refused') {
      const refusal: PhaseState = { phase: 'Failed', reason: target.reason, message: target.message };
      this.options.kube.event(object, 'Warning', refusal.reason, refusal.message);
      this.recorded.delete(key);
      return (
        (await this.publish(object, this.withPhase(object, { ...object.status }, refusal), signal)) ??
        awaitChange
      );
    }
    const { sessionId } = target;
    // Every step from here calls the platform: first, may this object's connection do that?
    const access = this.options.platformFor(target.object);
    if (!access.ok) {
      const state = {
        phase: object.status?.phase ?? 'Pending',
        reason: access.reason,
        message: access.message,
      };
      return this.blocked(object, state, signal);
    }
    if (step.kind === 'dryRun') return this.dryRun(object, access.client, signal);
    if (step.kind === 'submit') {
      const memory = this.recorded.get(key);
      const remembered = memory !== undefined && memory.uid === object.metadata.uid ? memory.batches : 0;
      const startAtBatch = Math.max(step.startAtBatch, remembered);
      return this.submit(
        object,
        access.client,
        { sessionId, startAtBatch, countFirst: step.countFirst && remembered === 0 },
        signal,
      );
    }
    return this.verify(object, access.client, sessionId, step.pastDeadline, signal);
  }

  /** Counts what the deletion would touch and ends, Completed (DryRun) or Failed (TooManyMatches). */
  private async dryRun(
    object: TraceDeletionObject,
    client: DeletionPlatformClient,
    signal: AbortSignal,
  ): Promise<Performed<Error>> {
    const measured = await this.measure(object, client, countBound(object.spec), signal);
    if (measured.kind === 'error') return failure(measured.error);
    if (measured.kind === 'unavailable') return this.idsUnavailable(object, measured.message, signal);
    const state = dryRunOutcome(object.spec, measured.matches, subjectOf(measured));
    return this.endWithoutDeleting(object, state, measured.matches, signal);
  }

  /**
   * What the deletion names: the ids of the id forms (read, checked and counted, no platform
   * call), or the traces the metadata matches, counted up to `countTo`.
   */
  private async measure(
    object: TraceDeletionObject,
    client: DeletionPlatformClient,
    countTo: number,
    signal: AbortSignal,
  ): Promise<Measured> {
    const { spec } = object;
    if (spec.metadata !== undefined) {
      const counted = await countTracesByMetadata(client, spec.metadata, countTo, signal);
      if (!counted.ok) {
        const error = new Error(`counting the matching traces failed: ${counted.error.message}`);
        return { kind: 'error', error };
      }
      return { kind: 'metadata', matches: matchesCounted(counted.value, countTo) };
    }
    const namespace = object.metadata.namespace ?? '';
    const source = await traceIdsOf(spec, (name, key) =>
      this.options.configMapValue(namespace, name, key, signal),
    );
    if (!source.ok) return { kind: 'unavailable', message: source.message };
    return { kind: 'ids', source, matches: { count: source.total, atLeast: false } };
  }

  private async submit(
    object: TraceDeletionObject,
    client: DeletionPlatformClient,
    { sessionId, startAtBatch, countFirst }: { sessionId: string; startAtBatch: number; countFirst: boolean },
    signal: AbortSignal,
  ): Promise<Performed<Error>> {
    const { spec } = object;
    // The metadata form is counted only for maxMatches, and only before its request is sent.
    const skipCount = spec.metadata !== undefined && !countFirst;
    const measured = skipCount ? undefined : await this.measure(object, client, countBound(spec), signal);
    if (measured?.kind === 'error') return failure(measured.error);
    if (measured?.kind === 'unavailable') return this.idsUnavailable(object, measured.message, signal);
    if (measured !== undefined) {
      const refused = tooManyMatches(spec, measured.matches, subjectOf(measured));
      if (refused !== undefined) return this.endWithoutDeleting(object, refused, measured.matches, signal);
    }
    const matches = measured?.matches;
    const source = measured?.kind === 'ids' ? measured.source : undefined;
    const total = source === undefined ? 1 : Math.ceil(source.total / MAX_IDS_PER_DELETE);
    let status: TraceDeletionStatus = {
      ...(matches === undefined ? object.status : withMatches({ ...object.status }, matches)),
      batchesSent: startAtBatch,
      batchesTotal: total,
      ...(source === undefined ? {} : { idsRequested: source.total }),
    };
    const submitting: PhaseState = {
      phase: 'Submitting',
      reason: 'Submitting',
      message: `sending ${total} delete request(s)${startAtBatch > 0 ? `, resuming after batch ${startAtBatch}` : ''}`,
    };
    if (object.status?.phase !== 'Submitting') {
      this.options.kube.event(object, 'Normal', 'Submitting', submitting.message);
    }
    status = this.withPhase(object, status, submitting);
    const first = await this.publish(object, status, signal);
    if (first !== undefined) return first;

    // Stops further batches when the object is gone (deleted while submitting) or a status
    // write fails: a batch whose acceptance cannot be recorded would be sent again on resume.
    const stop = new AbortController();
    const stopWith = () => stop.abort();
    signal.addEventListener('abort', stopWith, { once: true });
    let writeProblem: string | undefined;
    const recordBatch = async (batchesAccepted: number) => {
      status = { ...status, batchesSent: batchesAccepted };
      this.recorded.set(objectKey(object), { uid: object.metadata.uid ?? '', batches: batchesAccepted });
      const written = await this.options.kube.patchStatus(object, status, signal);
      if (!written.ok) {
        writeProblem = written.reason === 'Gone' ? 'the object was deleted' : written.message;
        stop.abort();
      } else if (this.options.stopping?.aborted === true) {
        writeProblem = 'the operator is stopping';
        stop.abort();
      }
    };
    try {
      const outcome =
        source === undefined
          ? await this.sendByMetadata(client, spec.metadata ?? {}, startAtBatch, stop.signal, recordBatch)
          : await submitTraceDeletion(client, {
              sessionId,
              traceIds: source.ids(),
              startAtBatch,
              signal: stop.signal,
              onBatchAccepted: recordBatch,
            });
      const problem = writeProblem ?? stoppedPassReason(signal);
      if (problem !== undefined) {
        this.options.logger.info({ key: objectKey(object), problem }, 'submission stopped');
        return awaitChange;
      }
      if (!outcome.ok) {
        const message = `batch ${(status.batchesSent ?? 0) + 1} of ${total} failed: ${outcome.error.message}`;
        this.options.kube.event(object, 'Warning', 'SubmitFailed', message);
        return failure(new Error(message));
      }
    } catch (error) {
      if (!(error instanceof IdSourceChanged)) throw error;
      // The recorded batch index counts ids of the text that was read before: resuming over a
      // different text would skip some ids and send others twice, so this deletion ends here.
      const refusal: PhaseState = { phase: 'Failed', reason: 'IdsChanged', message: error.message };
      this.options.kube.event(object, 'Warning', refusal.reason, refusal.message);
      this.recorded.delete(objectKey(object));
      return (await this.publish(object, this.withPhase(object, status, refusal), signal)) ?? awaitChange;
    } finally {
      signal.removeEventListener('abort', stopWith);
    }
    this.recorded.delete(objectKey(object));
    const now = this.options.clock.now();
    const submitted: PhaseState = {
      phase: 'Submitted',
      reason: 'Submitted',
      message: `${total} delete request(s) accepted; the platform deletes later, verification follows`,
    };
    this.options.kube.event(object, 'Normal', 'Submitted', submitted.message);
    const delay = jittered(this.timings.verifyIntervalMs, this.random);
    status = this.withPhase(object, status, submitted, {
      submittedAt: new Date(now).toISOString(),
      nextCheckAt: new Date(now + delay).toISOString(),
    });
    return (await this.publish(object, status, signal)) ?? requeueAfter(delay);
  }

  /** The metadata form is one request: recorded as accepted, it is not sent again on resume. */
  private async sendByMetadata(
    client: DeletionPlatformClient,
    metadata: Record<string, string>,
    startAtBatch: number,
    signal: AbortSignal,
    recordBatch: (batchesAccepted: number) => Promise<void>,
  ): Promise<Result<void>> {
    if (startAtBatch >= 1) return { ok: true, value: undefined };
    const result = await client.deleteTracesByMetadata(metadata, { priority: 'bulk', signal });
    if (result.ok) await recordBatch(1);
    return result;
  }

  private async verify(
    object: TraceDeletionObject,
    client: DeletionPlatformClient,
    sessionId: string,
    pastDeadline: boolean,
    signal: AbortSignal,
  ): Promise<Performed<Error>> {
    const { spec } = object;
    const namespace = object.metadata.namespace ?? '';
    let found;
    if (spec.metadata !== undefined) {
      found = await findTracesByMetadata(client, spec.metadata, 100, signal);
    } else {
      const source = await traceIdsOf(spec, (name, key) =>
        this.options.configMapValue(namespace, name, key, signal),
      );
      // Blocked, not failed: verification only reads, and looks again once the ids are back.
      if (!source.ok) return this.idsUnavailable(object, source.message, signal);
      try {
        found = await findSurvivingTraces(client, sessionId, source.ids(), signal);
      } catch (error) {
        if (!(error instanceof IdSourceChanged)) throw error;
        return this.idsUnavailable(object, error.message, signal);
      }
    }
    if (!found.ok) return failure(new Error(`verification failed: ${found.error.message}`));
    const now = this.options.clock.now();
    const survivors = found.value;
    const checked = { tracesRemaining: survivors.length };
    if (survivors.length === 0) {
      const state: PhaseState = {
        phase: 'Completed',
        reason: 'Verified',
        message: 'no matching trace is found any more',
      };
      this.options.kube.event(object, 'Normal', 'Completed', state.message);
      const status = this.withPhase(object, { ...object.status, ...checked }, state, {
        verifiedAt: new Date(now).toISOString(),
        nextCheckAt: undefined,
      });
      return (await this.publish(object, status, signal)) ?? awaitChange;
    }
    if (pastDeadline) {
      const shown = survivors.slice(0, SURVIVORS_SHOWN).join(', ');
      const more = spec.metadata !== undefined && survivors.length >= 100 ? ' or more' : '';
      const state: PhaseState = {
        phase: 'Failed',
        reason: 'TracesSurvive',
        message: `${survivors.length}${more} trace(s) still found after the verification deadline, e.g. ${shown}`,
      };
      this.options.kube.event(object, 'Warning', 'Failed', state.message);
      const status = this.withPhase(object, { ...object.status, ...checked }, state, {
        nextCheckAt: undefined,
      });
      return (await this.publish(object, status, signal)) ?? awaitChange;
    }
    const delay = jittered(this.timings.verifyIntervalMs, this.random);
    const state: PhaseState = {
      phase: 'Verifying',
      reason: 'TracesRemain',
      message: `${survivors.length} trace(s) still found; the platform deletes in a later job`,
    };
    if (object.status?.phase !== 'Verifying')
      this.options.kube.event(object, 'Normal', 'Verifying', state.message);
    const status = this.withPhase(object, { ...object.status, ...checked }, state, {
      nextCheckAt: new Date(now + delay).toISOString(),
    });
    return (await this.publish(object, status, signal)) ?? requeueAfter(delay);
  }

  /** Blocked, not failed, in the phase it is in: the ConfigMaps may come back (or be fixed). */
  private idsUnavailable(
    object: TraceDeletionObject,
    message: string,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    const phase = object.status?.phase ?? 'Pending';
    return this.blocked(object, { phase, reason: 'IdsUnavailable', message }, signal);
  }

  private endWithoutDeleting(
    object: TraceDeletionObject,
    state: PhaseState,
    matches: Matches,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    this.recorded.delete(objectKey(object));
    return publishWithoutDeleting(this.options, object, state, matches, signal);
  }

  private blocked(
    object: TraceDeletionObject,
    state: Omit<PhaseState, 'blocked'>,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    const timing = { now: this.options.clock.now(), recheckMs: this.timings.blockedRecheckMs };
    return publishBlocked(this.options.kube, object, state, timing, signal);
  }

  private withPhase(
    object: TraceDeletionObject,
    status: TraceDeletionStatus,
    state: PhaseState,
    extra: Partial<Record<'submittedAt' | 'verifiedAt' | 'nextCheckAt', string | undefined>> = {},
  ): TraceDeletionStatus {
    return withPhase(object, status, state, this.options.clock.now(), extra);
  }

  private publish(
    object: TraceDeletionObject,
    status: TraceDeletionStatus,
    signal: AbortSignal,
  ): Promise<ReconcileResult | undefined> {
    return publishPhase(this.options.kube, object, status, signal);
  }
}

type Measured =
  | { kind: 'ids'; source: Extract<IdSource, { ok: true }>; matches: Matches }
  | { kind: 'metadata'; matches: Matches }
  | { kind: 'unavailable'; message: string }
  | { kind: 'error'; error: Error };

function subjectOf(measured: Measured): string {
  return measured.kind === 'ids' ? 'trace id(s) named' : 'trace(s) match the metadata';
}
