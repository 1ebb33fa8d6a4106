// An in-memory ConnectionKubePort: holds the objects, applies finalizer and status writes
// (bumping resourceVersion), and records events, so reconciler tests can look at all of them.
import type { ConnectionStatus, PlatformConnectionObject } from '../../../src/api/connection/index.js';
import type { ConnectionKubePort } from '../../../src/reconcilers/connection/ports.js';
import type { WriteOutcome } from '../../../src/runtime/reconcile/object-port.js';

export interface RecordedEvent {
  type: string;
  reason: string;
  message: string;
}

export class FakeConnectionKube implements ConnectionKubePort {
  readonly objects = new Map<string, PlatformConnectionObject>();
  readonly events: RecordedEvent[] = [];
  statusWrites = 0;
  private version = 1;

  put(key: string, object: PlatformConnectionObject): void {
    this.objects.set(key, structuredClone(object));
  }

  get(key: string): PlatformConnectionObject | undefined {
    const object = this.objects.get(key);
    return object === undefined ? undefined : structuredClone(object);
  }

  patchFinalizers(
    object: PlatformConnectionObject,
    finalizers: readonly string[],
  ): Promise<WriteOutcome<PlatformConnectionObject>> {
    return this.write(object, (stored) => {
      stored.metadata.finalizers = [...finalizers];
    });
  }

  patchStatus(
    object: PlatformConnectionObject,
    status: ConnectionStatus,
  ): Promise<WriteOutcome<PlatformConnectionObject>> {
    this.statusWrites += 1;
    return this.write(object, (stored) => {
      stored.status = structuredClone(status);
    });
  }

  event(
    _object: PlatformConnectionObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): void {
    this.events.push({ type, reason, message });
  }

  private write(
    object: PlatformConnectionObject,
    change: (stored: PlatformConnectionObject) => void,
  ): Promise<WriteOutcome<PlatformConnectionObject>> {
    const entry = [...this.objects].find(([, stored]) => stored.metadata.uid === object.metadata.uid);
    if (entry === undefined) return Promise.resolve({ ok: false, reason: 'Gone', message: 'not found' });
    const [key, stored] = entry;
    change(stored);
    this.version += 1;
    stored.metadata.resourceVersion = String(this.version);
    if (stored.metadata.deletionTimestamp !== undefined && (stored.metadata.finalizers ?? []).length === 0) {
      this.objects.delete(key);
    }
    return Promise.resolve({ ok: true, value: structuredClone(stored) });
  }
}
