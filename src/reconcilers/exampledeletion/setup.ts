// The ExampleDeletion controller's set-up: its cache (the CRD may come later: until then the
// cache is empty and looked for again), the phase metric, the reconciler, and the controller
// and its watch.
import { GROUP, VERSION } from '../../api/agentdeployment/names.js';
import { EXAMPLE_DELETION, type ExampleDeletionObject } from '../../api/deletion/index.js';
import { systemClock } from '../../runtime/clock.js';
import { objectKey, type KubeObject } from '../../runtime/kube/objects.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import { watchOf } from '../../runtime/manager/manager.js';
import {
  deletionController,
  deletionObjects,
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
  const { logger } = context;
  const { informer: objects, port } = deletionObjects<KubeObject & ExampleDeletionObject>(
    context,
    'ExampleDeletion',
    EXAMPLE_DELETIONS,
  );
  const reconciler = new ExampleDeletionReconciler({
    kube: port,
    platformFor: (object) => context.platformFor(object),
    clock: systemClock,
    stopping: context.stopping,
    ...(context.timings === undefined ? {} : { timings: context.timings }),
    logger: logger.child({ controller: EXAMPLE_DELETION_CONTROLLER }),
  });
  context.manager.addController(
    deletionController(context, EXAMPLE_DELETION_CONTROLLER, objects, (key, signal) =>
      reconciler.reconcile(key, signal),
    ),
    [watchOf(objects, (object) => [objectKey(object)], specOrDeletionChanged)],
  );
}
