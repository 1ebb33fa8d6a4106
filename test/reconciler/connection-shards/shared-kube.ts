// One in-memory API server for the connection that several shards' reconcilers write to, each
// through its own view. Status writes are merge patches from what the writer read (as the real
// port sends them), a guarded write fails with Conflict when the object moved since, and a
// view can be made to serve a stale copy once, as a cache that has not caught up does.
import type { ConnectionStatus, PlatformConnectionObject } from '../../../src/api/connection/index.js';
import type { ConnectionKubePort } from '../../../src/reconcilers/connection/ports.js';
import { mergePatchBetween } from '../../../src/runtime/reconcile/merge-patch.js';
import type { StatusWriteOptions, WriteOutcome } from '../../../src/runtime/reconcile/object-port.js';

type Json = Record<string, unknown>;

function applyMergePatch(target: Json, patch: Json): Json {
  const result: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    const before = result[key];
    if (value === null) delete result[key];
    else if (isObject(value) && isObject(before)) result[key] = applyMergePatch(before, value);
    else result[key] = value;
  }
  return result;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class SharedConnectionServer {
  private object: PlatformConnectionObject | undefined;
  private version = 1;
  statusConflicts = 0;

  put(object: PlatformConnectionObject): void {
    this.version += 1;
    this.object = structuredClone({
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(this.version) },
    });
  }

  read(): PlatformConnectionObject | undefined {
    return this.object === undefined ? undefined : structuredClone(this.object);
  }

  /** Marks the object deleting, as the API server does for an object with finalizers. */
  delete(): void {
    if (this.object === undefined) return;
    const deleting = this.read();
    if (deleting === undefined) return;
    deleting.metadata.deletionTimestamp = '2026-11-26T12:00:00Z';
    this.put(deleting);
  }

  write(
    before: PlatformConnectionObject,
    guarded: boolean,
    change: (stored: PlatformConnectionObject) => void,
  ): WriteOutcome<PlatformConnectionObject> {
    const stored = this.read();
    if (stored === undefined) return { ok: false, reason: 'Gone', message: 'not found' };
    if (guarded && stored.metadata.resourceVersion !== before.metadata.resourceVersion) {
      this.statusConflicts += 1;
      return { ok: false, reason: 'Conflict', message: 'the object has been modified', status: 409 };
    }
    change(stored);
    if (stored.metadata.deletionTimestamp !== undefined && (stored.metadata.finalizers ?? []).length === 0) {
      this.object = undefined;
      return { ok: true, value: stored };
    }
    this.put(stored);
    const written = this.read();
    return written === undefined ? { ok: false, reason: 'Gone', message: 'not found' } : { ok: true, value: written };
  }
}

/** One shard's port onto the shared server. */
export class ShardView implements ConnectionKubePort {
  readonly events: Array<{ type: string; reason: string; message: string }> = [];
  private staleOnce: PlatformConnectionObject | undefined;

  constructor(private readonly server: SharedConnectionServer) {}

  /** The next read serves the object as it is now, whatever is written meanwhile. */
  freeze(): void {
    this.staleOnce = this.server.read();
  }

  get(): PlatformConnectionObject | undefined {
    const stale = this.staleOnce;
    this.staleOnce = undefined;
    return stale ?? this.server.read();
  }

  patchFinalizers(
    object: PlatformConnectionObject,
    finalizers: readonly string[],
  ): Promise<WriteOutcome<PlatformConnectionObject>> {
    return Promise.resolve(
      this.server.write(object, true, (stored) => {
        stored.metadata.finalizers = [...finalizers];
      }),
    );
  }

  patchStatus(
    object: PlatformConnectionObject,
    status: ConnectionStatus,
    _signal: AbortSignal,
    options: StatusWriteOptions = {},
  ): Promise<WriteOutcome<PlatformConnectionObject>> {
    const patch = mergePatchBetween(object.status as Json | undefined, status as Json);
    return Promise.resolve(
      this.server.write(object, options.guarded === true, (stored) => {
        stored.status = applyMergePatch((stored.status ?? {}) as Json, patch) as ConnectionStatus;
      }),
    );
  }

  event(_object: PlatformConnectionObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.push({ type, reason, message });
  }
}
