// The one Kubernetes port every controller's pass writes through: reads from the informer's
// cache overlaid with this process's own newer writes, finalizer and status patches with one
// outcome type, and events.
//
// The overlay closes the gap every cache-based controller has: right after a write, the cache
// may still hold the object as it was before, and a pass reading it would, for instance, not
// see the id it just recorded and create the thing again, or meet a 409 on its own write. So
// the port remembers the object its last write returned and serves that until the cache has
// delivered the write (or anything newer) for that key. "Newer" is by resourceVersion order
// where the API server's versions are comparable: an unguarded status patch lands on top of
// writes this process never read (a spec change), and the watch delivers those after the patch
// returned; they are older than the write and must not hide it. Where versions are opaque, only
// the versions this port itself saw before its writes count as older.
import type { Logger } from 'pino';
import type { EventType } from '../events/recorder.js';
import { referenceTo, type EventRecorder } from '../events/recorder.js';
import type { KubeClient } from '../kube/client.js';
import { trimForCache } from '../kube/cache-trim.js';
import { KubeApiError } from '../kube/errors.js';
import { objectKey, type KubeObject } from '../kube/objects.js';
import { compareResourceVersions } from '../kube/resource-version.js';
import type { ResourceType } from '../kube/resource.js';
import { mergePatchBetween } from './merge-patch.js';

/** A write's outcome, the same for every kind and every write. */
export type WriteOutcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      /** Conflict: a resourceVersion precondition failed (someone wrote first). Gone: 404. */
      reason: 'Conflict' | 'Gone' | 'Failed';
      /** Safe to log: the API server's message. */
      message: string;
      status?: number;
    };

export interface StatusWriteOptions {
  /** Adds a resourceVersion precondition: the write fails with Conflict if the object moved. */
  guarded?: boolean;
}

/** What the port needs of an object: its identity, version, finalizers and a status. */
export interface PortObject {
  metadata: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    finalizers?: string[];
  };
  status?: object;
}

export interface ObjectPort<T extends PortObject> {
  /** The object as last seen: the cache, overlaid with this process's own newer writes. */
  get(key: string): T | undefined;
  /** Sets the finalizers, guarded by resourceVersion (a Conflict rather than losing another's). */
  patchFinalizers(object: T, finalizers: readonly string[], signal: AbortSignal): Promise<WriteOutcome<T>>;
  /** A merge patch of the status subresource from `object.status` to `status`; no request when equal. */
  patchStatus(
    object: T,
    status: NonNullable<T['status']>,
    signal: AbortSignal,
    options?: StatusWriteOptions,
  ): Promise<WriteOutcome<T>>;
  event(object: T, type: EventType, reason: string, message: string): void;
}

export interface CachedObjectPortOptions<T extends PortObject> {
  client: Pick<KubeClient, 'mergePatch' | 'mergePatchStatus'>;
  /** The resource of an object (a function when one port serves a namespaced and a cluster-scoped kind). */
  type: ResourceType | ((object: T) => ResourceType);
  /** The cache: an informer's store, or any read by key. */
  store: { get(key: string): T | undefined };
  recorder: Pick<EventRecorder, 'record'>;
  logger: Logger;
  /** The key the store files an object under (default `namespace/name`). */
  keyOf?: (object: T) => string;
}

interface Overlay<T> {
  object: T;
  /** resourceVersions older than `object`'s that the cache may still show (for opaque versions). */
  older: Set<string>;
}

/** Fewest overlays before a sweep (see remember). */
const SWEEP_FLOOR = 64;

export class CachedObjectPort<T extends KubeObject & PortObject> implements ObjectPort<T> {
  private readonly overlays = new Map<string, Overlay<T>>();
  private sweepAt = SWEEP_FLOOR;

  constructor(private readonly options: CachedObjectPortOptions<T>) {}

  /** Writes the cache has not shown yet (or that no read has looked at since): a bounded few. */
  get overlayCount(): number {
    return this.overlays.size;
  }

  get(key: string): T | undefined {
    const cached = this.options.store.get(key);
    const overlay = this.overlays.get(key);
    if (!cached) {
      this.overlays.delete(key);
      return undefined;
    }
    if (overlay && cacheIsBehind(cached.metadata.resourceVersion ?? '', overlay)) return overlay.object;
    this.overlays.delete(key);
    return cached;
  }

  patchFinalizers(object: T, finalizers: readonly string[], signal: AbortSignal): Promise<WriteOutcome<T>> {
    // A merge patch replaces the whole list: guard it, so that a finalizer another
    // controller added meanwhile is not lost (Conflict instead, and a retry).
    return this.write(object, () =>
      this.options.client.mergePatch<T>(
        this.typeOf(object),
        object.metadata.namespace,
        object.metadata.name ?? '',
        { metadata: { finalizers, resourceVersion: object.metadata.resourceVersion } },
        { signal },
      ),
    );
  }

  async patchStatus(
    object: T,
    status: NonNullable<T['status']>,
    signal: AbortSignal,
    options: StatusWriteOptions = {},
  ): Promise<WriteOutcome<T>> {
    const patch = mergePatchBetween(
      object.status as Record<string, unknown> | undefined,
      status as Record<string, unknown>,
    );
    if (Object.keys(patch).length === 0) return { ok: true, value: object };
    const body: Record<string, unknown> = { status: patch };
    if (options.guarded === true) body.metadata = { resourceVersion: object.metadata.resourceVersion };
    return this.write(object, () =>
      this.options.client.mergePatchStatus<T>(
        this.typeOf(object),
        object.metadata.namespace,
        object.metadata.name ?? '',
        body,
        { signal },
      ),
    );
  }

  event(object: T, type: EventType, reason: string, message: string): void {
    this.options.recorder.record(referenceTo(object), type, reason, message).catch((error: unknown) => {
      this.options.logger.debug({ reason, error: String(error) }, 'event not recorded');
    });
  }

  private typeOf(object: T): ResourceType {
    const { type } = this.options;
    return typeof type === 'function' ? type(object) : type;
  }

  private async write(before: T, call: () => Promise<T>): Promise<WriteOutcome<T>> {
    try {
      return { ok: true, value: this.remember(before, await call()) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const status = error instanceof KubeApiError ? error.statusCode : undefined;
      const reason = status === 409 ? 'Conflict' : status === 404 ? 'Gone' : 'Failed';
      return { ok: false, reason, message, ...(status === undefined ? {} : { status }) };
    }
  }

  private remember(before: T, written: T): T {
    // Served in the cache's place until the cache catches up: trimmed as the cache's objects are.
    const after = trimForCache(written);
    const key = (this.options.keyOf ?? objectKey)(after);
    const previous = this.overlays.get(key);
    const older = new Set(previous?.older ?? []);
    older.add(before.metadata.resourceVersion ?? '');
    if (previous) older.add(previous.object.metadata.resourceVersion ?? '');
    older.delete(after.metadata.resourceVersion ?? '');
    this.overlays.set(key, { object: after, older });
    this.sweepWhenLarge();
    return after;
  }

  /**
   * get() drops an overlay once the cache has caught up, but only when that key is read
   * again; a controller that writes an object and never reads it back (status-only updates
   * wake no pass) would keep every written object twice. So when the overlays have doubled
   * since the last sweep, every key is looked at once: amortised O(1) per write, and at rest
   * at most a few dozen remain.
   */
  private sweepWhenLarge(): void {
    if (this.overlays.size < this.sweepAt) return;
    for (const key of [...this.overlays.keys()]) this.get(key);
    this.sweepAt = Math.max(SWEEP_FLOOR, this.overlays.size * 2);
  }
}

/** Whether the cache's version of an object predates the port's own write of it. */
function cacheIsBehind<T extends PortObject>(cachedVersion: string, overlay: Overlay<T>): boolean {
  const order = compareResourceVersions(cachedVersion, overlay.object.metadata.resourceVersion ?? '');
  return order === undefined ? overlay.older.has(cachedVersion) : order < 0;
}
