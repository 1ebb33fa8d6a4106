// The tracing-project controller's set-up: it watches the AgentDeployment cache the
// AgentDeployment controller fills, wakes only when an object comes to need a lookup, and
// writes status.tracingProject through a port of its own over that cache.
import type { Informer } from '../../runtime/manager/informer.js';
import { watchOf } from '../../runtime/manager/manager.js';
import { objectKey } from '../../runtime/kube/objects.js';
import { CachedObjectPort } from '../../runtime/reconcile/object-port.js';
import type { AgentDeploymentObject } from '../agentdeployment/kube-port.js';
import { AGENT_DEPLOYMENTS } from '../agentdeployment/setup.js';
import { deletionController, type DeletionSetupContext } from '../deletion/controller-kit.js';
import type { SessionAccess } from '../deletion/ports.js';
import { OPTIONAL_WORK_QUIET_MS } from '../../controlplane/budget/headroom.js';
import { decideTracingProject } from './decide.js';
import { TracingProjectReconciler } from './reconciler.js';

export const TRACING_PROJECT_CONTROLLER = 'tracingproject';
/** A project not found yet (the control plane creates it with the deployment) is looked for again this often. */
const RECHECK_MS = 30_000;
/**
 * A lookup spends only spare budget: it goes when its key's buckets are half full, as the
 * deployment controller's own optional calls (revision polls, early lists) do...
 */
const LOOKUP_SPARE_SHARE = 0.5;
/** ...and no create or poll has waited on them for two seconds (a rollout is not spending them)... */
const LOOKUP_QUIET_MS = OPTIONAL_WORK_QUIET_MS;
/** ...or after waiting this long for that: a key busy for longer still gets its projects recorded. */
const MAX_LOOKUP_DEFERRAL_MS = 5 * 60_000;

export function setUpTracingProjects(
  context: DeletionSetupContext,
  agentDeployments: Informer<AgentDeploymentObject>,
  sessionsForReading: (object: AgentDeploymentObject) => SessionAccess,
): void {
  const port = new CachedObjectPort<AgentDeploymentObject>({
    client: context.kube,
    type: AGENT_DEPLOYMENTS,
    store: agentDeployments.store,
    recorder: context.recorder,
    logger: context.logger,
  });
  // The controller is built after the reconciler it runs: the wake reaches it through this.
  const wake = { to: (_key: string): void => {} };
  const reconciler = new TracingProjectReconciler({
    objects: agentDeployments.store,
    kube: port,
    sessionsFor: sessionsForReading,
    recheckMs: context.timings?.blockedRecheckMs ?? RECHECK_MS,
    spareShare: LOOKUP_SPARE_SHARE,
    spareQuietMs: LOOKUP_QUIET_MS,
    maxDeferMs: MAX_LOOKUP_DEFERRAL_MS,
    logger: context.logger.child({ controller: TRACING_PROJECT_CONTROLLER }),
    wake: (key) => wake.to(key),
    stopping: context.stopping,
  });
  const needsLookup = (object: AgentDeploymentObject) => decideTracingProject(object).kind === 'lookup';
  const controller = deletionController(
    context,
    TRACING_PROJECT_CONTROLLER,
    agentDeployments,
    (key, signal) => reconciler.reconcile(key, signal),
  );
  wake.to = (key) => controller.enqueue(key);
  context.manager.addController(
    controller,
    // The AgentDeployment controller writes status often: only a change into "needs a lookup" wakes this one.
    [
      watchOf(
        agentDeployments,
        (object) => [objectKey(object)],
        (old, current) => needsLookup(current) && !needsLookup(old),
      ),
    ],
  );
}
