// An informer: one shared, indexed cache for a resource type, fed by one reflector per
// watched namespace (or one cluster-wide), with handlers that hear every change. Caches run on
// every replica so that a standby is warm when it becomes leader.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { RandomSource } from '../backoff.js';
import type { Clock } from '../clock.js';
import { IndexedStore, type IndexFunction } from '../cache/store.js';
import type { KubeClient } from '../kube/client.js';
import { trimForCache } from '../kube/cache-trim.js';
import { objectKey, type KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource.js';
import type { ResourceEventHandler } from '../reflector/handlers.js';
import { clientListWatch, type ListWatchSource } from '../reflector/list-watch.js';
import { transformedSource } from '../reflector/transformed-source.js';
import { Reflector, type ReflectorHealth, type ReflectorOptions } from '../reflector/reflector.js';

export type ReflectorTuning = Pick<
  ReflectorOptions<KubeObject>,
  'pageSize' | 'watchTimeoutSeconds' | 'watchdogMs' | 'backoff' | 'resyncPeriodMs' | 'mayBeAbsent'
>;

export interface InformerSource<T extends KubeObject> {
  source: ListWatchSource<T>;
  /** Which cached objects this source's lists cover. */
  inScope: (object: T) => boolean;
}

export interface InformerOptions<T extends KubeObject> extends ReflectorTuning {
  sources: Array<InformerSource<T>>;
  indexers?: Record<string, IndexFunction<T>>;
  clock?: Clock;
  random?: RandomSource;
  logger?: Logger;
}

export interface ResourceInformerOptions<T extends KubeObject> extends ReflectorTuning {
  type: ResourceType;
  /** Watch only these namespaces (one watch each); omitted or empty watches all. */
  namespaces?: string[];
  labelSelector?: string;
  fieldSelector?: string;
  indexers?: Record<string, IndexFunction<T>>;
  /** Applied to every object as it arrives; default trimForCache (managedFields, last-applied). */
  transform?: (object: T) => T;
}

export class Informer<T extends KubeObject = KubeObject> {
  readonly store: IndexedStore<T>;
  private readonly handlers = new Set<ResourceEventHandler<T>>();
  private readonly reflectors: Array<Reflector<T>>;

  constructor(options: InformerOptions<T>) {
    if (options.sources.length === 0) throw new Error('an informer needs at least one list/watch source');
    const logger = options.logger;
    this.store = new IndexedStore<T>(options.indexers, {
      onIndexError: (index, key, error) =>
        logger?.warn(
          { index, key, error: describe(error) },
          'index function failed; object left out of the index',
        ),
    });
    // A handler that throws must not stop the reflector (nor the other handlers): it would
    // leave the cache behind the server for every object, not only the one at fault.
    const each = (call: (handler: ResourceEventHandler<T>) => void, object: T): void =>
      this.handlers.forEach((handler) => {
        try {
          call(handler);
        } catch (error) {
          logger?.warn({ key: objectKey(object), error: describe(error) }, 'event handler failed');
        }
      });
    const fanOut: ResourceEventHandler<T> = {
      onAdd: (object) => each((h) => h.onAdd?.(object), object),
      onUpdate: (old, current) => each((h) => h.onUpdate?.(old, current), current),
      onDelete: (object) => each((h) => h.onDelete?.(object), object),
    };
    this.reflectors = options.sources.map(
      ({ source, inScope }) =>
        new Reflector<T>({
          source,
          store: this.store,
          handler: fanOut,
          inScope,
          clock: options.clock,
          random: options.random,
          logger: options.logger,
          pageSize: options.pageSize,
          watchTimeoutSeconds: options.watchTimeoutSeconds,
          watchdogMs: options.watchdogMs,
          backoff: options.backoff,
          resyncPeriodMs: options.resyncPeriodMs,
          mayBeAbsent: options.mayBeAbsent,
          // Resync re-delivers cached objects as updates, like client-go's resync.
          onResync: (objects) => objects.forEach((object) => fanOut.onUpdate?.(object, object)),
        }),
    );
  }

  /** One informer per type, one reflector per namespace in `namespaces` (or one for all). */
  static forResource<T extends KubeObject>(
    client: KubeClient,
    options: ResourceInformerOptions<T> & Omit<InformerOptions<T>, 'sources'>,
  ): Informer<T> {
    const scopes =
      options.namespaces && options.namespaces.length > 0 ? [...new Set(options.namespaces)] : [undefined];
    const sources = scopes.map((namespace) => ({
      source: transformedSource(
        clientListWatch<T>(client, options.type, {
          namespace,
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          // The default transform drops them (cache-trim.ts): no need to decode them first.
          ...(options.transform === undefined ? { omitManagedFields: true } : {}),
        }),
        options.transform ?? trimForCache,
      ),
      inScope: namespace === undefined ? () => true : (object: T) => object.metadata.namespace === namespace,
    }));
    return new Informer<T>({ ...options, sources });
  }

  /** Adds a handler; returns a function that removes it. */
  addHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers.add(handler);
    return () => {
      this.handlers.delete(handler);
    };
  }

  get hasSynced(): boolean {
    return this.reflectors.every((r) => r.hasSynced);
  }

  /**
   * Resolves true once every reflector has synced, false if `signal` aborts first. One
   * listener on `signal` however many reflectors (one per watched namespace): a caller's
   * signal awaited by many caches would otherwise collect a listener per reflector.
   */
  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.hasSynced) return true;
    if (signal?.aborted) return false;
    const waiting = new AbortController();
    // One listener per reflector on this pass's own signal: a known, bounded number.
    setMaxListeners(this.reflectors.length + 1, waiting.signal);
    const stopWaiting = (): void => waiting.abort();
    signal?.addEventListener('abort', stopWaiting, { once: true });
    try {
      const results = await Promise.all(this.reflectors.map((r) => r.waitForSync(waiting.signal)));
      return results.every(Boolean);
    } finally {
      signal?.removeEventListener('abort', stopWaiting);
      waiting.abort();
    }
  }

  health(): ReflectorHealth[] {
    return this.reflectors.map((r) => r.health());
  }

  /** Runs every reflector until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all(this.reflectors.map((r) => r.run(signal)));
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
