// Which updates of an AgentDeployment deserve a reconcile. The operator's own status writes
// would otherwise wake the object again for nothing (one extra pass per write, at 10,000
// objects a real cost). A re-delivery of the same object (the cache's periodic resync) and
// anything that changes the spec (generation), the deletion state, annotations or
// finalizers does. Runs once per watch event: it compares in place, allocating nothing.
//
// And which objects are settled: Ready at their generation and not being deleted. After a
// restart or a hand-over most are, and their first looks (and the observations those want
// from the fleet poller) go behind everything else: new, edited, rolling-out, stalled and
// deleting objects, and any change that arrives meanwhile.
import type { KubeObject } from '../../runtime/kube/objects.js';
import { isReadyAt } from './conditions.js';
import { generationOf, type AgentDeploymentView } from './object.js';

/** Ready at its generation and not being deleted: its looks can wait behind the others'. */
export function isSettled(object: AgentDeploymentView): boolean {
  return (
    object.metadata.deletionTimestamp === undefined &&
    isReadyAt(object.status?.conditions, generationOf(object))
  );
}

export function shouldReconcileOnUpdate(old: KubeObject, current: KubeObject): boolean {
  if (old === current) return true;
  const before = old.metadata;
  const after = current.metadata;
  return (
    before.generation !== after.generation ||
    before.deletionTimestamp !== after.deletionTimestamp ||
    !sameAnnotations(before.annotations, after.annotations) ||
    !sameFinalizers(before.finalizers, after.finalizers)
  );
}

function sameAnnotations(
  before: Readonly<Record<string, string>> | undefined,
  after: Readonly<Record<string, string>> | undefined,
): boolean {
  if (before === after) return true;
  const beforeKeys = before === undefined ? [] : Object.keys(before);
  const afterKeys = after === undefined ? [] : Object.keys(after);
  if (beforeKeys.length !== afterKeys.length) return false;
  for (const key of beforeKeys) {
    if (after?.[key] !== before?.[key] || !Object.hasOwn(after ?? {}, key)) return false;
  }
  return true;
}

function sameFinalizers(
  before: readonly string[] | undefined,
  after: readonly string[] | undefined,
): boolean {
  if (before === after) return true;
  const a = before ?? [];
  const b = after ?? [];
  return a.length === b.length && a.every((finalizer, i) => finalizer === b[i]);
}
