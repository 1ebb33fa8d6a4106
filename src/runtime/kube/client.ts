// A small client for unstructured resources of any type. Each method is one API call; retries
// belong to the caller (the reflector restarts, the controller requeues), which knows whether
// a retry is safe and how urgent it is.
import { KubeApiError } from './errors.js';
import {
  isKubeObject,
  type KubeObject,
  type KubeStatus,
  type ObjectList,
  type WatchEvent,
} from './objects.js';
import { collectionPath, objectPath, type ResourceType } from './resource.js';
import type { KubeTransport, QueryValue } from './transport.js';

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  /** "0" lets the server answer from its cache; omitted asks for the latest state. */
  resourceVersion?: string;
  signal?: AbortSignal;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  /** Events decoded without metadata.managedFields, for a reader that drops them anyway. */
  omitManagedFields?: boolean;
}

export interface WriteOptions {
  signal?: AbortSignal;
  /** "All" runs the request without persisting it. */
  dryRun?: 'All';
  fieldManager?: string;
}

export interface DeleteOptions extends WriteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Delete only if the object still has this resourceVersion. */
  resourceVersion?: string;
}

function selectors(options: { labelSelector?: string; fieldSelector?: string }): Record<string, QueryValue> {
  return { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
}

function writeQuery(options: WriteOptions): Record<string, QueryValue> {
  return { dryRun: options.dryRun, fieldManager: options.fieldManager };
}

function asObject<T extends KubeObject>(value: unknown, what: string): T {
  if (!isKubeObject(value))
    throw new KubeApiError(0, 'InvalidResponse', `${what}: the server answered without an object`);
  return value as T;
}

export class KubeClient {
  constructor(private readonly transport: KubeTransport) {}

  async get<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    signal?: AbortSignal,
  ): Promise<T> {
    const path = objectPath(type, namespace, name);
    return asObject<T>(await this.transport.json({ method: 'GET', path, signal }), `GET ${path}`);
  }

  /** One page of a list; follow `continue` for the next (or use `listAll`). */
  async list<T extends KubeObject = KubeObject>(
    type: ResourceType,
    options: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const path = collectionPath(type, options.namespace);
    const body = await this.transport.json({
      method: 'GET',
      path,
      query: {
        ...selectors(options),
        limit: options.limit,
        continue: options.continue,
        resourceVersion: options.resourceVersion,
      },
      signal: options.signal,
    });
    const list = body as
      { items?: unknown; metadata?: { resourceVersion?: unknown; continue?: unknown } } | undefined;
    if (!list || !Array.isArray(list.items) || typeof list.metadata?.resourceVersion !== 'string') {
      throw new KubeApiError(0, 'InvalidResponse', `GET ${path}: the server answered without a list`);
    }
    const items = list.items.map((item) => asObject<T>(item, `GET ${path}`));
    const next =
      typeof list.metadata.continue === 'string' && list.metadata.continue !== ''
        ? list.metadata.continue
        : undefined;
    return { items, resourceVersion: list.metadata.resourceVersion, ...(next ? { continue: next } : {}) };
  }

  /** Every page of a list; the resourceVersion is the one of the first page (a consistent snapshot). */
  async listAll<T extends KubeObject = KubeObject>(
    type: ResourceType,
    options: Omit<ListOptions, 'continue'> = {},
  ): Promise<ObjectList<T>> {
    const items: T[] = [];
    let page = await this.list<T>(type, options);
    const resourceVersion = page.resourceVersion;
    items.push(...page.items);
    while (page.continue) {
      page = await this.list<T>(type, { ...options, continue: page.continue, resourceVersion: undefined });
      items.push(...page.items);
    }
    return { items, resourceVersion };
  }

  /** Opens a watch; the iterable ends when the server closes the stream or `signal` aborts. */
  async watch<T extends KubeObject = KubeObject>(
    type: ResourceType,
    options: WatchOptions = {},
  ): Promise<AsyncIterable<WatchEvent<T>>> {
    const path = collectionPath(type, options.namespace);
    const lines = await this.transport.lines({
      method: 'GET',
      path,
      query: {
        watch: 1,
        ...selectors(options),
        resourceVersion: options.resourceVersion,
        allowWatchBookmarks: options.allowWatchBookmarks,
        timeoutSeconds: options.timeoutSeconds,
      },
      signal: options.signal,
      ...(options.omitManagedFields ? { omitManagedFields: true } : {}),
    });
    return toWatchEvents<T>(lines, path);
  }

  async create<T extends KubeObject>(type: ResourceType, object: T, options: WriteOptions = {}): Promise<T> {
    const path = collectionPath(type, object.metadata.namespace);
    return asObject<T>(
      await this.transport.json({
        method: 'POST',
        path,
        query: writeQuery(options),
        body: object,
        signal: options.signal,
      }),
      `POST ${path}`,
    );
  }

  /** PUT: replaces the object; carries metadata.resourceVersion for optimistic concurrency (409 on a stale one). */
  async replace<T extends KubeObject>(type: ResourceType, object: T, options: WriteOptions = {}): Promise<T> {
    const path = objectPath(type, object.metadata.namespace, object.metadata.name ?? '');
    return asObject<T>(
      await this.transport.json({
        method: 'PUT',
        path,
        query: writeQuery(options),
        body: object,
        signal: options.signal,
      }),
      `PUT ${path}`,
    );
  }

  /** RFC 7386 JSON merge patch (null removes a field). */
  async mergePatch<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: Record<string, unknown>,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.patch<T>(objectPath(type, namespace, name), patch, MERGE_PATCH, options);
  }

  /** Merge patch of the status subresource: spec changes in the patch are ignored by the server. */
  async mergePatchStatus<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: Record<string, unknown>,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.patch<T>(objectPath(type, namespace, name, 'status'), patch, MERGE_PATCH, options);
  }

  /** RFC 6902 JSON patch, e.g. a `test` on resourceVersion followed by a `replace`. */
  async jsonPatch<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    operations: Array<Record<string, unknown>>,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.patch<T>(objectPath(type, namespace, name), operations, JSON_PATCH, options);
  }

  /** Deletes; resolves to the object (still present with deletionTimestamp when finalizers hold it) or a Status. */
  async delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): Promise<KubeObject | KubeStatus> {
    const path = objectPath(type, namespace, name);
    const preconditions = options.resourceVersion ? { resourceVersion: options.resourceVersion } : undefined;
    const body =
      options.propagationPolicy || preconditions
        ? {
            kind: 'DeleteOptions',
            apiVersion: 'v1',
            propagationPolicy: options.propagationPolicy,
            preconditions,
          }
        : undefined;
    const answer = await this.transport.json({
      method: 'DELETE',
      path,
      query: writeQuery(options),
      body,
      signal: options.signal,
    });
    return (answer ?? {}) as KubeObject | KubeStatus;
  }

  private async patch<T extends KubeObject>(
    path: string,
    patch: unknown,
    contentType: string,
    options: WriteOptions,
  ): Promise<T> {
    return asObject<T>(
      await this.transport.json({
        method: 'PATCH',
        path,
        query: writeQuery(options),
        body: patch,
        contentType,
        signal: options.signal,
      }),
      `PATCH ${path}`,
    );
  }
}

async function* toWatchEvents<T extends KubeObject>(
  lines: AsyncIterable<unknown>,
  path: string,
): AsyncIterable<WatchEvent<T>> {
  for await (const line of lines) {
    const event = line as { type?: unknown; object?: unknown } | undefined;
    const type = event?.type;
    if (type === 'ERROR') {
      const status = (
        typeof event?.object === 'object' && event.object !== null ? event.object : {}
      ) as KubeStatus;
      yield { type: 'ERROR', status };
    } else if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED' || type === 'BOOKMARK') {
      yield { type, object: asObject<T>(event?.object, `watch ${path}`) };
    } else {
      throw new KubeApiError(
        0,
        'InvalidResponse',
        `watch ${path}: unknown event type ${JSON.stringify(type)}`,
      );
    }
  }
}
