// The Kubernetes side of spec.export: the exported ConfigMaps as the operator's filtered cache
// shows them (only ConfigMaps labelled as the operator's, so that it does not hold every
// ConfigMap of the cluster for this), overlaid with its own latest writes (right after a create
// the cache may not show it yet: without the overlay, the next pass would create it again and
// meet its own object as a stranger's), and the writes themselves. A name is another's when a
// ConfigMap of that name exists (the names-only ConfigMap watch says so) without this object's
// controller ownerReference.
import type { Logger } from 'pino';
import { API_VERSION, KIND } from '../../api/agentdeployment/index.js';
import type { Clock } from '../../runtime/clock.js';
import type { KubeClient } from '../../runtime/kube/client.js';
import { KubeApiError } from '../../runtime/kube/errors.js';
import type { KubeObject } from '../../runtime/kube/objects.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import { Informer } from '../../runtime/manager/informer.js';
import { EXPORT_LABEL, EXPORT_LABEL_VALUE, type ExportWrite, type ExportedConfigMap } from './export.js';

const CONFIG_MAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };
const BY_OWNER = 'byOwner';
/** How long the port trusts its own write the cache has not shown yet. */
const OVERLAY_TTL_MS = 30_000;

export type ConfigMapObject = KubeObject & { data?: Record<string, string> };

/** The owner of an exported ConfigMap: the AgentDeployment. */
export interface ExportOwner {
  namespace: string;
  name: string;
  uid: string;
}

export type ExportWriteOutcome =
  | { ok: true }
  /** A create met an object of that name the cache did not know: someone else's. */
  | { ok: false; kind: 'taken' }
  /** Someone wrote first (or removed it): look again. */
  | { ok: false; kind: 'moved' }
  | { ok: false; kind: 'failed'; message: string; status?: number };

export interface ExportPort {
  /** The ConfigMaps of `namespace` this object (uid) owns as their controller. */
  owned(namespace: string, ownerUid: string): ExportedConfigMap[];
  /** Whether a ConfigMap `name` exists in `namespace` that this object (uid) does not own. */
  foreign(namespace: string, name: string, ownerUid: string): boolean;
  write(owner: ExportOwner, write: ExportWrite, signal: AbortSignal): Promise<ExportWriteOutcome>;
}

/** The operator's ConfigMaps (by its managed-by label), indexed by the uid of their controller. */
export function exportedConfigMapInformer(
  client: KubeClient,
  namespaces: readonly string[],
  logger: Logger,
): Informer<ConfigMapObject> {
  return Informer.forResource<ConfigMapObject>(client, {
    type: CONFIG_MAPS,
    namespaces: [...namespaces],
    labelSelector: `${EXPORT_LABEL}=${EXPORT_LABEL_VALUE}`,
    logger,
    indexers: {
      [BY_OWNER]: (configMap) => {
        const uid = controllerUidOf(configMap);
        return uid === undefined ? [] : [`${configMap.metadata.namespace ?? ''}/${uid}`];
      },
    },
  });
}

/** The `namespace/name` of the AgentDeployment that controls `configMap`, if any. */
export function exportOwnerKey(configMap: KubeObject): string | undefined {
  const owner = controllerOf(configMap);
  return owner === undefined ? undefined : `${configMap.metadata.namespace ?? ''}/${String(owner['name'])}`;
}

function controllerOf(object: KubeObject): Record<string, unknown> | undefined {
  return object.metadata.ownerReferences?.find(
    (reference) =>
      reference['controller'] === true &&
      reference['kind'] === KIND &&
      reference['apiVersion'] === API_VERSION,
  );
}

function controllerUidOf(object: KubeObject): string | undefined {
  const uid = controllerOf(object)?.['uid'];
  return typeof uid === 'string' ? uid : undefined;
}

interface View extends ExportedConfigMap {
  ownerUid?: string;
}

type Overlay =
  | { kind: 'written'; view: View; older: Set<string>; at: number }
  | { kind: 'deleted'; uid: string; at: number };

export class ConfigMapExports implements ExportPort {
  private readonly overlays = new Map<string, Overlay>();

  constructor(
    private readonly client: Pick<KubeClient, 'create' | 'replace' | 'delete'>,
    private readonly managed: Informer<ConfigMapObject>,
    /** Every ConfigMap's name in the watched namespaces (names and versions only). */
    private readonly names: { get(key: string): KubeObject | undefined },
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  owned(namespace: string, ownerUid: string): ExportedConfigMap[] {
    const keys = new Set(
      this.managed.store
        .byIndex(BY_OWNER, `${namespace}/${ownerUid}`)
        .map((cm) => `${namespace}/${cm.metadata.name ?? ''}`),
    );
    for (const key of this.overlays.keys()) if (key.startsWith(`${namespace}/`)) keys.add(key);
    const owned: ExportedConfigMap[] = [];
    for (const key of [...keys].sort()) {
      const view = this.view(key);
      if (view?.ownerUid === ownerUid) {
        const { ownerUid: _owner, ...configMap } = view;
        owned.push(configMap);
      }
    }
    return owned;
  }

  foreign(namespace: string, name: string, ownerUid: string): boolean {
    const key = `${namespace}/${name}`;
    const view = this.view(key);
    if (view !== undefined) return view.ownerUid !== ownerUid;
    const overlay = this.overlays.get(key);
    // Just deleted by this process: the names watch may still show it.
    if (overlay?.kind === 'deleted' && this.names.get(key)?.metadata.uid === overlay.uid) return false;
    return this.names.get(key) !== undefined;
  }

  async write(owner: ExportOwner, write: ExportWrite, signal: AbortSignal): Promise<ExportWriteOutcome> {
    const key = `${owner.namespace}/${write.name}`;
    try {
      if (write.op === 'delete') {
        await this.client.delete(CONFIG_MAPS, owner.namespace, write.name, {
          resourceVersion: write.resourceVersion,
          signal,
        });
        this.overlays.set(key, { kind: 'deleted', uid: write.uid, at: this.clock.now() });
        return { ok: true };
      }
      const body: ConfigMapObject = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: write.name,
          namespace: owner.namespace,
          labels: { [EXPORT_LABEL]: EXPORT_LABEL_VALUE },
          ownerReferences: [
            {
              apiVersion: API_VERSION,
              kind: KIND,
              name: owner.name,
              uid: owner.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
          ...(write.op === 'update' ? { resourceVersion: write.resourceVersion } : {}),
        },
        data: write.data,
      };
      const written =
        write.op === 'create'
          ? await this.client.create(CONFIG_MAPS, body, { signal })
          : await this.client.replace(CONFIG_MAPS, body, { signal });
      const older = new Set(write.op === 'update' ? [write.resourceVersion] : []);
      const view = viewOf(written);
      if (view !== undefined) this.overlays.set(key, { kind: 'written', view, older, at: this.clock.now() });
      return { ok: true };
    } catch (error) {
      const status = error instanceof KubeApiError ? error.statusCode : undefined;
      if (status === 409 && write.op === 'create') return { ok: false, kind: 'taken' };
      if (status === 409 || status === 404) return { ok: false, kind: 'moved' };
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, kind: 'failed', message, ...(status === undefined ? {} : { status }) };
    }
  }

  /** The ConfigMap at `key` as the cache shows it, unless this process's own write is newer. */
  private view(key: string): View | undefined {
    const cached = this.managed.store.get(key);
    const overlay = this.overlays.get(key);
    const fresh = overlay !== undefined && this.clock.now() - overlay.at < OVERLAY_TTL_MS;
    if (overlay !== undefined && fresh) {
      if (overlay.kind === 'deleted') {
        if (cached?.metadata.uid === overlay.uid) return undefined;
      } else if (cached === undefined) {
        return overlay.view;
      } else if (
        cached.metadata.uid === overlay.view.uid &&
        overlay.older.has(cached.metadata.resourceVersion ?? '')
      ) {
        return overlay.view;
      }
    }
    this.overlays.delete(key);
    return cached === undefined ? undefined : viewOf(cached);
  }
}

function viewOf(configMap: ConfigMapObject): View | undefined {
  const { name, uid, resourceVersion } = configMap.metadata;
  if (name === undefined || uid === undefined) return undefined;
  const ownerUid = controllerUidOf(configMap);
  return {
    name,
    uid,
    resourceVersion: resourceVersion ?? '',
    data: { ...(configMap.data ?? {}) },
    ...(ownerUid === undefined ? {} : { ownerUid }),
  };
}
