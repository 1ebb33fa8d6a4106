// The TraceDeletion controller's set-up: its cache (the CRD may come later: until then the
// cache is empty and looked for again), the phase metric, the reconciler with its ConfigMap
// reads, and the controller and its watch.
import { GROUP, VERSION } from '../../api/agentdeployment/names.js';
import { TRACE_DELETION, type TraceDeletionObject } from '../../api/deletion/index.js';
import { systemClock } from '../../runtime/clock.js';
import type { KubeClient } from '../../runtime/kube/client.js';
import { KubeApiError } from '../../runtime/kube/errors.js';
import { objectKey, type KubeObject } from '../../runtime/kube/objects.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import { watchOf } from '../../runtime/manager/manager.js';
import {
  deletionController,
  deletionObjects,
  specOrDeletionChanged,
  type DeletionSetupContext,
} from '../deletion/controller-kit.js';
import { TraceDeletionReconciler } from './reconciler.js';
import type { ProjectReferencePorts } from './project-reference.js';

export const TRACE_DELETION_CONTROLLER = 'tracedeletion';
export const TRACE_DELETIONS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: TRACE_DELETION.plural,
};
const CONFIG_MAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };

export interface TraceVerificationTimings {
  /** --deletion-verify-interval. */
  deletionVerifyIntervalMs?: number;
  /** --deletion-verify-deadline. */
  deletionVerifyDeadlineMs?: number;
}

export function setUpTraceDeletions(
  context: DeletionSetupContext,
  verification: TraceVerificationTimings,
  /** With it, spec.agentDeploymentRef resolves; without it (no AgentDeployment cache), it is refused. */
  projectReference?: ProjectReferencePorts,
): void {
  const { kube, logger } = context;
  const { informer: objects, port } = deletionObjects<KubeObject & TraceDeletionObject>(
    context,
    'TraceDeletion',
    TRACE_DELETIONS,
  );
  const reconciler = new TraceDeletionReconciler({
    kube: port,
    platformFor: (object) => context.platformFor(object),
    configMapValue: (namespace, name, key, signal) => configMapValue(kube, namespace, name, key, signal),
    clock: systemClock,
    ...(projectReference === undefined ? {} : { projectReference }),
    stopping: context.stopping,
    timings: {
      ...(verification.deletionVerifyIntervalMs === undefined
        ? {}
        : { verifyIntervalMs: verification.deletionVerifyIntervalMs }),
      ...(verification.deletionVerifyDeadlineMs === undefined
        ? {}
        : { verifyDeadlineMs: verification.deletionVerifyDeadlineMs }),
      ...context.timings,
    },
    logger: logger.child({ controller: TRACE_DELETION_CONTROLLER }),
  });
  context.manager.addController(
    deletionController(context, TRACE_DELETION_CONTROLLER, objects, (key, signal) =>
      reconciler.reconcile(key, signal),
    ),
    [watchOf(objects, (object) => [objectKey(object)], specOrDeletionChanged)],
  );
}

async function configMapValue(
  kube: KubeClient,
  namespace: string,
  name: string,
  key: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  try {
    const configMap = await kube.get<KubeObject & { data?: Record<string, string> }>(
      CONFIG_MAPS,
      namespace,
      name,
      signal,
    );
    return configMap.data?.[key];
  } catch (error) {
    if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
    throw error;
  }
}
