// Records an AgentDeployment's tracing project in status.tracingProject: looked up by the
// deployment's name through the platform data API with the object's own connection, once, and
// again only while it is missing (decide.ts). A project not there yet is looked for again
// later; a connection that cannot be used yet, too. The write is a merge patch of that one
// field, so the AgentDeployment controller's own status writes keep it.
//
// Nothing waits for the project id, so a lookup spends only spare budget: while the buckets of
// its key are under `spareShare` full, or an interactive request (a rollout's create) waited on
// them in the last `spareQuietMs`, it waits, and goes ahead anyway once it has waited
// `maxDeferMs` (a key that is never spare still gets its projects recorded). A waiting lookup
// costs no passes: it waits in its connection's line, whose pump wakes it (lookup-line.ts).
import type { Logger } from 'pino';
import type { Clock } from '../../runtime/clock.js';
import {
  awaitChange,
  failed,
  requeueAfter,
  requeueNow,
  type ReconcileResult,
} from '../../runtime/reconcile/result.js';
import type { ObjectPort } from '../../runtime/reconcile/object-port.js';
import type { AgentDeploymentObject } from '../agentdeployment/kube-port.js';
import type { SessionAccess } from '../deletion/ports.js';
import { decideTracingProject } from './decide.js';
import { LookupLines } from './lookup-line.js';

export interface TracingProjectReconcilerOptions {
  objects: { get(key: string): AgentDeploymentObject | undefined };
  kube: Pick<ObjectPort<AgentDeploymentObject>, 'patchStatus'>;
  sessionsFor(object: AgentDeploymentObject): SessionAccess;
  /** How soon a project not found (or a connection not usable) is looked for again. */
  recheckMs: number;
  /** A lookup goes ahead when its key's buckets are at least this full (0..1)... */
  spareShare: number;
  /** ...and no interactive request has waited on them for this long... */
  spareQuietMs: number;
  /** ...or when it has waited this long for that. */
  maxDeferMs: number;
  logger: Logger;
  /** Runs the key's pass soon (the controller's enqueue): a waiting lookup's turn has come. */
  wake(key: string): void;
  clock?: Clock;
  /** Aborted when the operator stops: the lines' pumps stop. */
  stopping?: AbortSignal;
}

export class TracingProjectReconciler {
  private readonly lines: LookupLines;

  constructor(private readonly options: TracingProjectReconcilerOptions) {
    this.lines = new LookupLines({
      maxDeferMs: options.maxDeferMs,
      maxFailureBackoffMs: options.recheckMs,
      wake: options.wake,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.stopping === undefined ? {} : { stopping: options.stopping }),
    });
  }

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const object = this.options.objects.get(key);
    if (object === undefined) return this.done(key);
    const step = decideTracingProject(object);
    if (step.kind === 'none') return this.done(key);
    const access = this.options.sessionsFor(object);
    if (!access.ok) {
      this.options.logger.debug(
        { key, reason: access.reason },
        'tracing project lookup waits for the connection',
      );
      this.lines.leave(key);
      return requeueAfter(this.options.recheckMs);
    }
    const { client, label } = access;
    const admission = this.lines.admit(label, key, () =>
      client.msUntilSessionLookupSpare(this.options.spareShare, this.options.spareQuietMs),
    );
    if (!admission.go) return awaitChange;
    let answered = false;
    try {
      const found = await client.findSessionByName(step.name, { signal, priority: 'bulk' });
      answered = found.ok;
      if (!found.ok)
        return failed(new Error(`looking up tracing project ${step.name}: ${found.error.message}`));
      if (found.value === undefined) return requeueAfter(this.options.recheckMs);
      const tracingProject = { name: step.name, id: found.value.id };
      const written = await this.options.kube.patchStatus(
        object,
        { ...object.status, tracingProject },
        signal,
      );
      if (written.ok || written.reason === 'Gone') return awaitChange;
      return written.reason === 'Conflict'
        ? requeueNow
        : failed(new Error(`write failed: ${written.message}`));
    } finally {
      // A failed lookup pauses the line, so that it does not run through a failing API; one
      // abandoned because its object left (deleted, or now another shard's) says nothing of it.
      this.lines.finished(label, !answered && !signal.aborted);
    }
  }

  /** Nothing to look up for this key (any more): it no longer waits for spare budget. */
  private done(key: string): ReconcileResult {
    this.lines.leave(key);
    return awaitChange;
  }
}
