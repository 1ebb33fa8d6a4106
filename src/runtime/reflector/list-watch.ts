// What a reflector needs from the API: list pages and open watches for one resource type in
// one scope. Tests script this interface; `clientListWatch` backs it with a KubeClient.
import type { KubeClient } from '../kube/client.js';
import type { KubeObject, ObjectList, WatchEvent } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource.js';

export interface ListPageRequest {
  limit: number;
  continue?: string;
  signal: AbortSignal;
}

export interface WatchRequest {
  resourceVersion: string;
  timeoutSeconds: number;
  signal: AbortSignal;
}

export interface ListWatchSource<T extends KubeObject = KubeObject> {
  /** For logs and health: e.g. "apps.example.com/v1 widgets in ns-a". */
  readonly description: string;
  list(request: ListPageRequest): Promise<ObjectList<T>>;
  /** Opens a watch with bookmarks on; the iterable ends when the server closes the stream. */
  watch(request: WatchRequest): Promise<AsyncIterable<WatchEvent<T>>>;
}

export interface ListWatchScope {
  /** Watch one namespace; omitted watches all namespaces (or a cluster-scoped type). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** The reader drops metadata.managedFields: watch events are decoded without them. */
  omitManagedFields?: boolean;
}

export function clientListWatch<T extends KubeObject = KubeObject>(
  client: KubeClient,
  type: ResourceType,
  scope: ListWatchScope = {},
): ListWatchSource<T> {
  const group = type.group === '' ? '' : `${type.group}/`;
  return {
    description: `${group}${type.version} ${type.plural}${scope.namespace ? ` in ${scope.namespace}` : ''}`,
    list: (request) =>
      client.list<T>(type, {
        namespace: scope.namespace,
        labelSelector: scope.labelSelector,
        fieldSelector: scope.fieldSelector,
        limit: request.limit,
        continue: request.continue,
        signal: request.signal,
      }),
    watch: (request) =>
      client.watch<T>(type, {
        namespace: scope.namespace,
        labelSelector: scope.labelSelector,
        fieldSelector: scope.fieldSelector,
        resourceVersion: request.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: request.timeoutSeconds,
        signal: request.signal,
        ...(scope.omitManagedFields ? { omitManagedFields: true } : {}),
      }),
  };
}
