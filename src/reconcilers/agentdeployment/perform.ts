// The shell's writes: one action of `decide` carried out, at most one control-plane mutation,
// status published only when it changed. A failure is answered as a value (PassFailure) for
// the one error policy (afterFailure), never handled on the spot. The one call that may take
// long, the smoke test of a deployed revision, runs in the background with its own deadline:
// the pass returns at once and the call's end wakes the key.
import type { Deployment, DeploymentCreateRequest } from '../../controlplane/models/index.js';
import { isRetryable } from '../../agentruntime/errors.js';
import { objectKey } from '../../runtime/kube/objects.js';
import { addFinalizer, removeFinalizer } from '../../runtime/reconcile/finalizers.js';
import { failure, type Performed } from '../../runtime/reconcile/pass.js';
import {
  awaitChange,
  backoff,
  failed,
  requeueAfter,
  requeueNow,
  type ReconcileResult,
} from '../../runtime/reconcile/result.js';
import { publishStatus } from '../../runtime/reconcile/status-publisher.js';
import type { Action, EventSpec, PublishOptions } from './action.js';
import { adoptionFacts, adoptionMessage, adoptionState } from './adoption.js';
import { isReadyAt } from './conditions.js';
import { recheckDelayMs } from './decide.js';
import { errorPolicy } from './error-policy.js';
import { announce, warnCannotClear } from './events.js';
import { decideFailedWrite } from './failed-write.js';
import { announceArrivedRevision } from './revision-arrival.js';
import type { KeyMemory } from './key-memory.js';
import { FINALIZER, generationOf, hasFinalizer, type AgentDeploymentView } from './object.js';
import type { Observed, RefusedCreate, SmokeTestOutcome } from './observed.js';
import { revisionPollIntervalMs, type PassContext, type PassFailure, type Shell } from './pass-context.js';
import type { Failure, Outcome } from './ports.js';
import { judgeAnswer, quote } from './smoke-test.js';
import { performExport } from './export-perform.js';
import { nextStatus, statusChanged, type StatusFacts } from './status.js';
import { knownUnchanged, unchangedStatus } from './status-memo.js';
import type { SyncState } from './sync-state.js';

type Result<Object extends AgentDeploymentView> = Performed<PassFailure<Object>>;

export class Performer<Object extends AgentDeploymentView> {
  constructor(
    private readonly shell: Shell<Object>,
    /** Ends the background smoke-test calls when the operator stops. */
    private readonly background: AbortSignal,
    /** Looks at the key again within this pass (after a refused create, for decide's verdict). */
    private readonly lookAgain: (pass: PassContext<Object>) => Promise<ReconcileResult>,
  ) {}

  async perform(pass: PassContext<Object>, observed: Observed, action: Action): Promise<Result<Object>> {
    const { deps, timings } = this.shell;
    const { object, signal } = pass;
    switch (action.kind) {
      case 'nothing':
        return awaitChange;
      case 'wait':
        return requeueAfter(action.requeueAfterMs);
      case 'fail':
        return failure({ object, error: action.error });
      case 'publish':
        return this.publishState(pass, object, action.state, action.facts, action);
      case 'addFinalizer': {
        const result = await addFinalizer(deps.kube, object, FINALIZER, signal);
        if (!result.ok) return failure({ object, error: writeFailure(result) });
        // Go on to the create in this pass, as Crossplane's managed reconciler does: a requeue
        // would put the key behind every other key in the queue, so a burst of new objects
        // wrote all their finalizers before the first create (bench:converge's slow start).
        // Only when the port already serves the written object, so the finalizer is never
        // written twice in one pass.
        const current = deps.kube.get(pass.key);
        return current !== undefined && hasFinalizer(current) ? this.lookAgain(pass) : requeueNow;
      }
      case 'create':
        return this.create(pass, action.request, action.facts, action.specKey);
      case 'adopt':
        return this.adopt(pass, action);
      case 'patch':
        return this.patch(pass, action);
      case 'rollback':
        return this.rollback(pass, action);
      case 'forget': {
        pass.lane.poller.untrack(action.id);
        this.shell.memory.forget(pass.key);
        const message = `Deployment ${action.id} no longer exists on the control plane; creating it again`;
        deps.kube.event(object, 'Warning', 'DeploymentGone', message);
        const published = await this.publish(
          object,
          { kind: 'Creating', message },
          { clearIds: true, ownership: { uid: observed.object.uid } },
          signal,
        );
        return published.ok ? requeueNow : failure({ object, error: published.error });
      }
      case 'delete': {
        const deleted = await pass.lane.controlPlane.deleteDeployment(
          action.id,
          signal,
          action.deleteTracingProject === true ? { deleteTracingProject: true } : {},
        );
        if (!deleted.ok && decideFailedWrite(action, deleted.error).kind === 'errorPolicy')
          return failure({ object, error: deleted.error });
        deps.kube.event(object, 'Normal', 'Deleting', `Deleting deployment ${action.id}`);
        const published = await this.publish(
          object,
          { kind: 'Deleting', message: `Waiting for deployment ${action.id} to be deleted` },
          {},
          signal,
        );
        return published.ok
          ? requeueAfter(timings.deletionPollMs)
          : failure({ object, error: published.error });
      }
      case 'release':
        return this.release(pass, action.event, action.orphaned);
      case 'smokeTest':
        return this.smokeTest(pass, action);
      case 'export':
        return performExport(this.shell, pass, action);
      case 'observeDeployment':
      case 'observeName':
      case 'observeRevision':
        return backoff;
    }
  }

  /**
   * The one error policy, applied once per pass: what the failure means for the next visit,
   * and the state status shows (a settled object stays Ready through a failed resync: the
   * agent still runs).
   */
  async afterFailure(
    { object, error, facts = {} }: PassFailure<Object>,
    signal: AbortSignal,
  ): Promise<ReconcileResult> {
    const { deps } = this.shell;
    const decision = errorPolicy(error);
    deps.metrics?.reconcileFailed?.(decision.label);
    const showState =
      decision.state !== undefined &&
      (decision.then.kind === 'stall' || !isReadyAt(object.status?.conditions, generationOf(object)));
    if (decision.state && showState) {
      const published = await this.publish(object, decision.state, facts, signal);
      if (!published.ok && published.error.kind === 'Conflict') return requeueNow;
    }
    switch (decision.then.kind) {
      case 'requeueAfter':
        return requeueAfter(decision.then.ms);
      case 'backoff':
        deps.logger.debug(
          {
            key: `${object.metadata.namespace}/${object.metadata.name}`,
            class: decision.label,
            error: error.message,
          },
          'backing off',
        );
        return failed({ message: error.message, logged: true });
      case 'requeueNow':
        return requeueNow;
      case 'stall':
        return awaitChange;
    }
  }

  private async create(
    pass: PassContext<Object>,
    request: DeploymentCreateRequest,
    facts: StatusFacts,
    refusedKey: string,
  ): Promise<Result<Object>> {
    const { deps, timings } = this.shell;
    const { object, signal, lane, key } = pass;
    const uid = object.metadata.uid ?? '';
    // A create woken before its place in the budget's line came (its own finalizer's watch
    // event, an edit) waits for the rest of it: asking the budget again would give it a second
    // place at the end of the line, and every such place lengthens the line for all the others
    // (bench:connections: the saturated key's budget idle for 30 s while its last objects waited).
    const memory = pass.memory;
    const waiting = memory.createWait;
    const now = deps.clock.now();
    if (waiting !== undefined && waiting.until > now)
      return failure({ object, error: { ...waiting.error, retryAfterMs: waiting.until - now } });
    // The create's token first: a create the budget refuses comes back at its place in line
    // before anything is written (writing the intent, then clearing it when the POST was
    // refused, cost two Kubernetes writes per throttled pass), and a written intent is sent.
    const token = await lane.controlPlane.reserveCreate(key, signal);
    if (!token.ok) {
      const retryAfterMs = token.error.kind === 'Throttled' ? token.error.retryAfterMs : undefined;
      memory.createWait =
        retryAfterMs === undefined ? undefined : { until: deps.clock.now() + retryAfterMs, error: token.error };
      return failure({ object, error: token.error });
    }
    memory.createWait = undefined;
    // The intent goes to status first, guarded by resourceVersion: if the object moved (or
    // another replica acted), the write fails with 409 and nothing is sent.
    const intent = await this.publish(
      object,
      { kind: 'Creating', message: `Creating deployment "${request.name}"` },
      { ...facts, ownership: { uid, createRequestedAt: new Date(deps.clock.now()).toISOString() } },
      signal,
      true,
    );
    if (!intent.ok) return failure({ object, error: intent.error });
    if (signal.aborted) return awaitChange;
    const current = intent.value;
    const created = await lane.controlPlane.createDeployment(request, signal, token.value);
    if (!created.ok) {
      const error = created.error;
      const step = decideFailedWrite({ kind: 'create', request, facts, specKey: refusedKey }, error);
      if (step.kind === 'rememberRefusedCreate') return this.refused(pass, step.refusal);
      // A failure that proves nothing was created clears the intent: no lookup next time.
      const nothingCreated = error.kind !== 'Transient' || error.unclear !== true;
      return failure({ object: current, error, facts: nothingCreated ? { ownership: { uid } } : {} });
    }
    const deployment = created.value;
    memory.refused = undefined;
    lane.observations.recordPresent(deployment, deps.clock.now());
    this.rolloutStarted(pass, memory, deployment);
    deps.kube.event(current, 'Normal', 'Created', `Created deployment ${deployment.id} (${deployment.name})`);
    const revision = deployment.latest_revision_id;
    const recorded = await this.publish(
      current,
      {
        kind: 'RevisionInProgress',
        message: revision ? `Revision ${revision} is CREATING` : 'Waiting for the first revision',
      },
      {
        ...facts,
        deployment,
        latestRevisionStatus: 'CREATING',
        ownership: { uid, deploymentId: deployment.id },
      },
      signal,
    );
    if (!recorded.ok) return failure({ object: current, error: recorded.error });
    lane.poller.track(deployment.id, key, 'inflight');
    return requeueAfter(Math.max(memory.nextRevisionPollAt - deps.clock.now(), timings.minRevisionPollMs));
  }

  /**
   * The control plane refused the create. What that means (a name clash or another reason)
   * is decide's: the refusal is remembered and the object looked at again within this pass,
   * so that decide asks for the name lookup and the verdict is published at once (until it
   * is, status still records the create intent). That look cannot POST again: the refusal's
   * rung comes first, and deletion recovers nothing for a refused create.
   */
  private refused(pass: PassContext<Object>, refusal: RefusedCreate): Promise<ReconcileResult> {
    pass.memory.refusedCreate = refusal;
    return this.lookAgain(pass);
  }

  /** Records a refusal; returns when to re-check although nothing changed. */
  private remember(
    pass: PassContext<Object>,
    refused: NonNullable<PublishOptions['refused']>,
    message: string,
  ): number {
    const memory = pass.memory;
    const previous = memory.refused;
    const recheckFailures = previous?.specKey === refused.specKey ? previous.recheckFailures + 1 : 0;
    memory.refused = { ...refused, message, at: this.shell.deps.clock.now(), recheckFailures };
    // A refused create is told apart once: its verdict is this refusal.
    memory.refusedCreate = undefined;
    return recheckDelayMs(recheckFailures, this.shell.timings);
  }

  private async adopt(
    pass: PassContext<Object>,
    { deployment, reason, then }: Extract<Action, { kind: 'adopt' }>,
  ): Promise<Result<Object>> {
    const { deps } = this.shell;
    const { object, signal } = pass;
    const adopted: EventSpec = { type: 'Normal', reason, message: adoptionMessage(deployment) };
    let result: Result<Object>;
    if (then) {
      // Ownership and what the owned object publishes next, in one write (adoption.ts).
      result = await this.publishState(pass, object, then.state, then.facts, {
        ...then,
        events: [adopted, ...(then.events ?? [])],
      });
      if (result.kind === 'failure') return result;
    } else {
      const published = await this.publish(
        object,
        adoptionState(deployment),
        adoptionFacts(object.metadata.uid ?? '', deployment),
        signal,
      );
      if (!published.ok) return failure({ object, error: published.error });
      deps.kube.event(object, adopted.type, adopted.reason, adopted.message);
      result = requeueNow;
    }
    pass.lane.observations.recordPresent(deployment, deps.clock.now());
    pass.memory.refused = undefined;
    // Adopted back: the orphan record is spent (a failure only leaves a stale record, which
    // lets this same namespace adopt it again; it is retried at the next adoption).
    await deps.orphans?.forget(deployment.id, signal);
    return result;
  }

  private async patch(
    pass: PassContext<Object>,
    action: Extract<Action, { kind: 'patch' }>,
  ): Promise<Result<Object>> {
    const { deps, timings } = this.shell;
    const { object, signal, lane, key } = pass;
    const id = action.deployment.id;
    const patched = await lane.controlPlane.patchDeployment(id, action.patch, signal);
    if (!patched.ok) {
      const step = decideFailedWrite(action, patched.error);
      if (step.kind === 'lookAgain') return requeueNow;
      if (step.kind !== 'publishRefusal') return failure({ object, error: patched.error });
      return this.publishState(pass, object, step.state, step.facts, step.options);
    }
    const deployment = patched.value;
    const memory = pass.memory;
    memory.refused = undefined;
    lane.observations.recordPresent(deployment, deps.clock.now());
    warnCannotClear(this.shell, object, action.warnings);
    const what = action.changedFields.join(', ');
    if (action.drift) {
      deps.kube.event(
        object,
        'Warning',
        'DriftCorrected',
        `Changed outside the operator and re-applied: ${what}`,
      );
    } else {
      deps.kube.event(object, 'Normal', 'Updated', `Updated ${what}`);
    }
    if (!action.createsRevision) return requeueNow;
    deps.kube.event(
      object,
      'Normal',
      'NewRevision',
      `Revision ${deployment.latest_revision_id ?? '?'} started`,
    );
    this.rolloutStarted(pass, memory, deployment);
    const revision = deployment.latest_revision_id ?? '?';
    const published = await this.publish(
      object,
      { kind: 'RevisionInProgress', message: `Revision ${revision} is CREATING` },
      { ...action.facts, deployment, latestRevisionStatus: 'CREATING' },
      signal,
    );
    if (!published.ok) return failure({ object, error: published.error });
    lane.poller.track(id, key, 'inflight');
    return requeueAfter(Math.max(memory.nextRevisionPollAt - deps.clock.now(), timings.minRevisionPollMs));
  }

  /**
   * Sets the owned deployment back to an older revision's source. The record goes to status
   * first, so that a crash or a failed PATCH leaves the set-aside spec set aside (decide sends
   * the PATCH again while the latest revision is still the one set aside).
   */
  private async rollback(
    pass: PassContext<Object>,
    action: Extract<Action, { kind: 'rollback' }>,
  ): Promise<Result<Object>> {
    const { deps, timings } = this.shell;
    const { signal, lane, key } = pass;
    const recorded = await this.publish(pass.object, action.state, action.facts, signal);
    if (!recorded.ok) return failure({ object: pass.object, error: recorded.error });
    const object = recorded.value;
    if (signal.aborted) return awaitChange;
    const id = action.deployment.id;
    const patched = await lane.controlPlane.patchDeployment(id, action.patch, signal);
    if (!patched.ok) return failure({ object, error: patched.error });
    const deployment = patched.value;
    lane.observations.recordPresent(deployment, deps.clock.now());
    deps.kube.event(object, action.event.type, action.event.reason, action.event.message);
    this.rolloutStarted(pass, pass.memory, deployment);
    const revision = deployment.latest_revision_id ?? '?';
    const published = await this.publish(
      object,
      { kind: 'RevisionInProgress', message: `Revision ${revision} is CREATING; ${action.state.message}` },
      { deployment, latestRevisionStatus: 'CREATING' },
      signal,
    );
    if (!published.ok) return failure({ object, error: published.error });
    lane.poller.track(id, key, 'inflight');
    return requeueAfter(
      Math.max(pass.memory.nextRevisionPollAt - deps.clock.now(), timings.minRevisionPollMs),
    );
  }

  /**
   * Starts one smoke-test call and returns without waiting for it: a slow or warming agent
   * holds no worker. The outcome lands in this key's memory and wakes the key; `decide`
   * turns it into a verdict or a retry after backoff.
   */
  private async smokeTest(
    pass: PassContext<Object>,
    action: Extract<Action, { kind: 'smokeTest' }>,
  ): Promise<Result<Object>> {
    const { deps, timings, memory: store } = this.shell;
    const { key, object, signal } = pass;
    const memory = pass.memory;
    const previous = memory.smokeTest?.testKey === action.testKey ? memory.smokeTest : undefined;
    const attempt = {
      testKey: action.testKey,
      attempts: (previous?.attempts ?? 0) + 1,
      firstAttemptAt: previous?.firstAttemptAt ?? deps.clock.now(),
      inFlight: true,
    };
    memory.smokeTest = attempt;
    void this.callAgent(key, action).then((outcome) => {
      // A newer test (another revision or spec) replaced this one, or the operator stops:
      // its outcome is moot.
      if (this.background.aborted) return;
      if (memory.smokeTest !== attempt || store.peek(key) !== memory) return;
      memory.smokeTest = { ...attempt, inFlight: false, last: outcome, lastFinishedAt: deps.clock.now() };
      deps.wake?.(key);
    });
    // Followed at the steady pace meanwhile, on the object's own lane.
    pass.lane.poller.track(action.deploymentId, key, action.settledMode ?? 'steady');
    const published = await this.publish(object, action.state, action.facts, signal);
    if (!published.ok) return failure({ object, error: published.error });
    // Safety net only: the call's end wakes the key long before this.
    return requeueAfter(action.timeoutMs + timings.smokeTestRetryMs);
  }

  private async callAgent(
    key: string,
    action: Extract<Action, { kind: 'smokeTest' }>,
  ): Promise<SmokeTestOutcome> {
    const { deps } = this.shell;
    const agents = deps.agents;
    if (!agents) return { kind: 'failed', message: 'the operator has no agent runtime client' };
    const started = deps.clock.now();
    let outcome: SmokeTestOutcome;
    try {
      const answer = await agents.runOnce(
        key,
        {
          url: action.url,
          credential: action.credential,
          ...(action.headers ? { headers: action.headers } : {}),
          input: action.input,
          timeoutMs: action.timeoutMs,
        },
        this.background,
      );
      if (!answer.ok) {
        const message = `${answer.error.kind}: ${answer.error.message}`;
        outcome = { kind: isRetryable(answer.error) ? 'retryable' : 'failed', message };
      } else {
        const judged = judgeAnswer(answer.value.values, action.expect, (text) => agents.redact(key, text));
        outcome = judged.passed
          ? { kind: 'passed', message: `the agent answered ${quote(judged.reply)}` }
          : { kind: 'failed', message: judged.reason };
      }
    } catch (error) {
      outcome = { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
    const seconds = (deps.clock.now() - started) / 1000;
    const result = outcome.kind === 'passed' ? 'passed' : outcome.kind === 'failed' ? 'failed' : 'retry';
    deps.metrics?.smokeTestCalled?.(result, seconds);
    const redacted = { ...outcome, message: agents.redact(key, outcome.message) };
    // Nothing of this call is quoted any more: the port forgets a tenant key it read for it.
    agents.release?.(key);
    return redacted;
  }

  private async release(
    pass: PassContext<Object>,
    event: EventSpec | undefined,
    orphaned?: string,
  ): Promise<Result<Object>> {
    const { deps } = this.shell;
    const { key, object, signal } = pass;
    // The record comes first: released without it, the deployment would be adoptable only
    // from --adoption-namespaces (safe, but the team that orphaned it could not take it back).
    if (orphaned !== undefined && deps.orphans !== undefined) {
      const recorded = await deps.orphans.record(
        orphaned,
        {
          namespace: object.metadata.namespace,
          name: object.metadata.name,
          orphanedAt: new Date(deps.clock.now()).toISOString(),
        },
        signal,
      );
      if (!recorded.ok) return failure({ object, error: recorded.error });
    }
    // Only what this key follows: a forged record must not stop the owner's observation.
    pass.lane.poller.untrackKey(key);
    const released = await removeFinalizer(deps.kube, object, FINALIZER, signal);
    if (!released.ok) return failure({ object, error: writeFailure(released) });
    if (event) deps.kube.event(object, event.type, event.reason, event.message);
    this.shell.memory.forget(key);
    return awaitChange;
  }

  /** A revision the control plane just made is CREATING: no GET is needed to know that. */
  private rolloutStarted(pass: PassContext<Object>, memory: KeyMemory, deployment: Deployment): void {
    const revision = deployment.latest_revision_id;
    if (!revision) return;
    const now = this.shell.deps.clock.now();
    memory.rolloutStartedAt.set(revision, now);
    memory.revisionStatus.set(revision, 'CREATING');
    memory.nextRevisionPollAt = now + revisionPollIntervalMs(this.shell.timings, pass.lane);
  }

  private async publishState(
    pass: PassContext<Object>,
    object: Object,
    state: SyncState,
    facts: StatusFacts,
    options: PublishOptions,
  ): Promise<Result<Object>> {
    let requeueAfterMs = options.requeueAfterMs;
    if (options.refused) requeueAfterMs = this.remember(pass, options.refused, state.message);
    const track = options.track;
    if (track?.mode === 'want') pass.lane.poller.want(track.id, pass.key);
    else if (track) pass.lane.poller.track(track.id, pass.key, track.mode);
    const published = await this.publish(object, state, facts, pass.signal);
    if (!published.ok) return failure({ object, error: published.error });
    if (published.value !== object) {
      warnCannotClear(this.shell, object, options.warnings);
      for (const event of options.events ?? [])
        this.shell.deps.kube.event(object, event.type, event.reason, event.message);
    }
    return requeueAfterMs === undefined ? awaitChange : requeueAfter(requeueAfterMs);
  }

  /** Writes status if it changed; events for transitions come from the same comparison. */
  private async publish(
    object: Object,
    state: SyncState,
    facts: StatusFacts,
    signal: AbortSignal,
    guarded = false,
  ): Promise<Outcome<Object>> {
    const generation = generationOf(object);
    const memory = this.shell.memory.peek(objectKey(object));
    if (knownUnchanged(memory?.unchangedStatus, object.status, generation, state, facts))
      return { ok: true, value: object };
    const now = new Date(this.shell.deps.clock.now());
    const status = nextStatus(object, state, facts, now);
    status.lastSyncTime = now.toISOString();
    const published = await publishStatus(this.shell.deps.kube, object, status, signal, {
      guarded,
      changed: statusChanged,
    });
    if (published.kind === 'failed') return { ok: false, error: writeFailure(published.outcome) };
    if (memory !== undefined)
      memory.unchangedStatus =
        published.kind === 'unchanged' && !signal.aborted
          ? unchangedStatus(object.status, generation, state, facts)
          : undefined;
    if (published.kind === 'written') {
      announceArrivedRevision(this.shell, object, status);
      announce(this.shell, object, state, status);
    }
    return { ok: true, value: published.object };
  }
}

/** A failed Kubernetes write as the error policy reads it: a 409 is a Conflict, anything else Transient. */
function writeFailure(outcome: {
  reason: 'Conflict' | 'Gone' | 'Failed';
  message: string;
  status?: number;
}): Failure {
  return {
    kind: outcome.reason === 'Conflict' ? 'Conflict' : 'Transient',
    message: outcome.message,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
  };
}
