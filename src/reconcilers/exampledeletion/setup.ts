// The ExampleDeletion controller's set-up: its cache (the CRD may come later: until then the
// cache is empty and looked for again), the phase metric, the reconciler, and the controller
// and its watch.
import { GROUP, VERSION } from '../../api/agentdeployment/names.js';
import { EXAMPLE_DELETION, type ExampleDeletionObject } from '../../api/deletion/index.js';
import { bindDeletionPhaseMetric } from '../../observability/deletion-metrics.js';
import { systemClock } from '../../runtime/clock.js';
import { objectKey, type KubeObject } from '../../runtime/kube/objects.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import { Informer } from '../../runtime/manager/informer.js';
import { watchOf } from '../../runtime/manager/manager.js';
import { CachedObjectPort } from '../../runtime/reconcile/object-port.js';
import { MAY_BE_ABSENT } from '../connection/setup.js';
import {
  deletionController,
  specOrDeletionChanged,
  type DeletionSetupContext,
} from '../deletion/controller-kit.js';
import { ExampleDeletionReconciler } from './reconciler.js';

export const EXAMPLE_DELETION_CONTROLLER = 'exampledeletion';
export const EXAMPLE_DELETIONS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: EXAMPLE_DELETION.plural,
};

export function setUpExampleDeletions(context: DeletionSetupContext): void {
  const { kube, logger } = context;
  const objects = Informer.forResource<KubeObject & ExampleDeletionObject>(kube, {
    type: EXAMPLE_DELETIONS,
    namespaces: context.namespaces,
    logger: logger.child({ informer: EXAMPLE_DELETION.plural }),
    mayBeAbsent: MAY_BE_ABSENT,
  });
  bindDeletionPhaseMetric(context.registry, 'ExampleDeletion', () => objects.store.list());
  const reconciler = new ExampleDeletionReconciler({
    kube: new CachedObjectPort({
      client: kube,
      type: EXAMPLE_DELETIONS,
      store: objects.store,
      recorder: context.recorder,
      logger,
    }),
    platformFor: (object) => context.platformFor(object),
    clock: systemClock,
    stopping: context.stopping,
    ...(context.timings === undefined ? {} : { timings: context.timings }),
    logger: logger.child({ controller: EXAMPLE_DELETION_CONTROLLER }),
  });
  context.manager.addController(
    deletionController(context, EXAMPLE_DELETION_CONTROLLER, (key, signal) =>
      reconciler.reconcile(key, signal),
    ),
    [watchOf(objects, (object) => [objectKey(object)], specOrDeletionChanged)],
  );
}
