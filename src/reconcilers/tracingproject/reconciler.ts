// Records an AgentDeployment's tracing project in status.tracingProject: looked up by the
// deployment's name through the platform data API with the object's own connection, once, and
// again only while it is missing (decide.ts). A project not there yet is looked for again
// later; a connection that cannot be used yet, too. The write is a merge patch of that one
// field, so the AgentDeployment controller's own status writes keep it.
import type { Logger } from 'pino';
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

export interface TracingProjectReconcilerOptions {
  objects: { get(key: string): AgentDeploymentObject | undefined };
  kube: Pick<ObjectPort<AgentDeploymentObject>, 'patchStatus'>;
  sessionsFor(object: AgentDeploymentObject): SessionAccess;
  /** How soon a project not found (or a connection not usable) is looked for again. */
  recheckMs: number;
  logger: Logger;
}

export class TracingProjectReconciler {
  constructor(private readonly options: TracingProjectReconcilerOptions) {}

  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const object = this.options.objects.get(key);
    if (object === undefined) return awaitChange;
    const step = decideTracingProject(object);
    if (step.kind === 'none') return awaitChange;
    const access = this.options.sessionsFor(object);
    if (!access.ok) {
      this.options.logger.debug(
        { key, reason: access.reason },
        'tracing project lookup waits for the connection',
      );
      return requeueAfter(this.options.recheckMs);
    }
    const found = await access.client.findSessionByName(step.name, { signal, priority: 'bulk' });
    if (!found.ok)
      return failed(new Error(`looking up tracing project ${step.name}: ${found.error.message}`));
    if (found.value === undefined) return requeueAfter(this.options.recheckMs);
    const tracingProject = { name: step.name, id: found.value.id };
    const written = await this.options.kube.patchStatus(object, { ...object.status, tracingProject }, signal);
    if (written.ok || written.reason === 'Gone') return awaitChange;
    return written.reason === 'Conflict' ? requeueNow : failed(new Error(`write failed: ${written.message}`));
  }
}
