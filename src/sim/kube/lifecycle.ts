// The controllers a real cluster runs that clients can observe: CRDs start serving their
// resources when written; deleting a CRD deletes its custom resources first; deleting a
// namespace deletes everything in it, then the namespace. Finalizers are honoured: an
// object with finalizers keeps its container (namespace, CRD) Terminating until it goes.
import type { ApiContext } from './api-context.js';
import { CRD_CLEANUP_FINALIZER, prepareCrd, resourceTypeOfCrd } from './crd.js';
import type { KubeObject } from './kube-object.js';
import type { ResourceType } from './resource-type.js';
import type { ObjectWriter } from './writes.js';

const CRD_STORAGE_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
const NAMESPACE_STORAGE_KEY = '/namespaces';

export function installLifecycle(ctx: ApiContext, writer: ObjectWriter): void {
  const crdType = ctx.registry.findByStorageKey(CRD_STORAGE_KEY);
  const namespaceType = ctx.registry.findByStorageKey(NAMESPACE_STORAGE_KEY);
  if (!crdType || !namespaceType) throw new Error('built-in CRD and namespace resources are missing');
  crdType.prepare = prepareCrd(ctx.validator, ctx.clock);

  const servedTypeOfCrd = (crd: KubeObject): ResourceType | undefined => {
    const spec = crd['spec'] as { group?: string; names?: { plural?: string } } | undefined;
    const plural = spec?.names?.plural;
    if (!spec?.group || !plural) return undefined;
    return ctx.registry.all().find((t) => t.group === spec.group && t.plural === plural && t.custom);
  };

  /** Removes the CRD's cleanup finalizer once none of its custom resources remain. */
  const finishCrdIfEmpty = (crdName: string): void => {
    const stored = ctx.resourceStore(crdType).get(crdName);
    if (!stored?.metadata.deletionTimestamp) return;
    const type = servedTypeOfCrd(stored);
    if (type && ctx.resourceStore(type).size > 0) return;
    const current = ctx.toServed(crdType, 'v1', stored);
    const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    writer.commit(crdType, 'v1', current, { ...current, metadata: { ...current.metadata, finalizers } }, false);
  };

  /** Removes the namespace once it is empty (the "kubernetes" spec finalizer is done). */
  const finishNamespaceIfEmpty = (name: string): void => {
    const stored = ctx.namespaceObject(name);
    if (!stored?.metadata.deletionTimestamp || ctx.countInNamespace(name) > 0) return;
    writer.commit(namespaceType, 'v1', stored, { ...stored, spec: { ...(stored['spec'] as object), finalizers: [] } }, false);
  };

  const deleteAll = (type: ResourceType, objects: KubeObject[]): void => {
    for (const object of objects) {
      try {
        writer.delete(type, type.versions[0] ?? 'v1', object.metadata.namespace, object.metadata.name ?? '', { dryRun: false });
      } catch {
        // Already gone: another deletion won the race, which is what we wanted.
      }
    }
  };

  ctx.writeHooks.push((type, object) => {
    if (type.storageKey !== CRD_STORAGE_KEY) return;
    const served = resourceTypeOfCrd(object);
    if (served) ctx.registry.setCustom(served);
  });

  ctx.deletionHooks.push((type, object) => {
    const name = object.metadata.name ?? '';
    if (type.storageKey === CRD_STORAGE_KEY) {
      const served = servedTypeOfCrd(object);
      if (served) {
        const store = ctx.resourceStore(served);
        deleteAll(served, store.keys().map((k) => store.get(k)).filter((o): o is KubeObject => o !== undefined));
      }
      finishCrdIfEmpty(name);
    } else if (type.storageKey === NAMESPACE_STORAGE_KEY) {
      // Two served types may share one storage (core and events.k8s.io Events): empty each
      // storage once, through whichever of its types comes first.
      const emptied = new Set<string>();
      for (const candidate of ctx.registry.all()) {
        if (!candidate.namespaced || emptied.has(candidate.storageKey)) continue;
        emptied.add(candidate.storageKey);
        const store = ctx.resourceStore(candidate);
        deleteAll(candidate, store.keys(name).map((k) => store.get(k)).filter((o): o is KubeObject => o !== undefined));
      }
      finishNamespaceIfEmpty(name);
    }
  });

  ctx.removalHooks.push((type, object) => {
    if (type.storageKey === CRD_STORAGE_KEY) {
      const served = servedTypeOfCrd(object);
      if (served) ctx.registry.removeCustom(served.group, served.plural);
      return;
    }
    if (type.custom) finishCrdIfEmpty(type.custom.crdName);
    const namespace = object.metadata.namespace;
    if (type.namespaced && namespace) finishNamespaceIfEmpty(namespace);
  });
}
