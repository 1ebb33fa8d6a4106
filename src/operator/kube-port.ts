// Binds the reconciler's KubePort to the controller runtime: reads from the informers'
// caches, writes through the KubeClient, events through the aggregating recorder.
//
// The overlay closes the gap every cache-based controller has: right after a write, the
// cache may still hold the object as it was before, and a reconcile reading it would, for
// instance, not see the deployment id it just recorded and create the deployment again. So
// the port remembers the object its last write returned and serves that until the cache
// has delivered the write (or anything newer) for that key.
import type { Logger } from 'pino';
import type { KubeClient } from '../runtime/kube/client.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import type { ResourceType } from '../runtime/kube/resource.js';
import { referenceTo, type EventRecorder } from '../runtime/events/recorder.js';
import type { IndexedStore } from '../runtime/cache/store.js';
import type { KubePort, Outcome } from '../reconcilers/agentdeployment/ports.js';
import { KubeApiError } from '../runtime/kube/errors.js';
import {
  objectKey,
  type AgentDeploymentStatusView,
  type AgentDeploymentView,
} from '../reconcilers/agentdeployment/object.js';
import type { SecretValues } from './secret-values.js';
import { mergePatchBetween } from './merge-patch.js';

export type AgentDeploymentObject = AgentDeploymentView & KubeObject;

interface Overlay {
  object: AgentDeploymentObject;
  /** resourceVersions older than `object`'s that the cache may still show. */
  older: Set<string>;
}

export interface KubePortOptions {
  client: KubeClient;
  type: ResourceType;
  objects: IndexedStore<AgentDeploymentObject>;
  secrets: SecretValues;
  recorder: EventRecorder;
  logger: Logger;
}

export class AgentDeploymentKubePort implements KubePort<AgentDeploymentObject> {
  private readonly overlays = new Map<string, Overlay>();

  constructor(private readonly options: KubePortOptions) {}

  getObject(key: string): AgentDeploymentObject | undefined {
    const cached = this.options.objects.get(key);
    const overlay = this.overlays.get(key);
    if (!cached) {
      this.overlays.delete(key);
      return undefined;
    }
    if (overlay && overlay.older.has(cached.metadata.resourceVersion ?? '')) return overlay.object;
    this.overlays.delete(key);
    return cached;
  }

  getSecret(namespace: string, name: string): ReturnType<SecretValues['get']> {
    return this.options.secrets.get(namespace, name);
  }

  loadSecrets(namespace: string, names: readonly string[], signal: AbortSignal): Promise<Outcome<void>> {
    return this.options.secrets.load(namespace, names, signal);
  }

  async patchFinalizers(
    object: AgentDeploymentObject,
    finalizers: string[],
    signal: AbortSignal,
  ): Promise<Outcome<AgentDeploymentObject>> {
    // A merge patch replaces the whole list: guard it, so that a finalizer another
    // controller added meanwhile is not lost (409 Conflict instead, and a retry).
    return this.write(object, () =>
      this.options.client.mergePatch<AgentDeploymentObject>(
        this.options.type,
        object.metadata.namespace,
        object.metadata.name,
        { metadata: { finalizers, resourceVersion: object.metadata.resourceVersion } },
        { signal },
      ),
    );
  }

  async patchStatus(
    object: AgentDeploymentObject,
    status: AgentDeploymentStatusView,
    signal: AbortSignal,
    guarded = false,
  ): Promise<Outcome<AgentDeploymentObject>> {
    const patch = mergePatchBetween(
      object.status as Record<string, unknown> | undefined,
      status as Record<string, unknown>,
    );
    if (Object.keys(patch).length === 0) return { ok: true, value: object };
    const body: Record<string, unknown> = { status: patch };
    if (guarded) body.metadata = { resourceVersion: object.metadata.resourceVersion };
    return this.write(object, () =>
      this.options.client.mergePatchStatus<AgentDeploymentObject>(
        this.options.type,
        object.metadata.namespace,
        object.metadata.name,
        body,
        { signal },
      ),
    );
  }

  /** A write as a value: 409 is a Conflict (re-read, retry now), anything else Transient. */
  private async write(
    before: AgentDeploymentObject,
    call: () => Promise<AgentDeploymentObject>,
  ): Promise<Outcome<AgentDeploymentObject>> {
    try {
      return { ok: true, value: this.remember(before, await call()) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const conflict = error instanceof KubeApiError && error.statusCode === 409;
      return {
        ok: false,
        error: { kind: conflict ? 'Conflict' : 'Transient', message, status: statusOf(error) },
      };
    }
  }

  event(object: AgentDeploymentObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.options.recorder.record(referenceTo(object), type, reason, message).catch((error: unknown) => {
      this.options.logger.debug({ reason, error: String(error) }, 'event not recorded');
    });
  }

  private remember(before: AgentDeploymentObject, after: AgentDeploymentObject): AgentDeploymentObject {
    const key = objectKey(after);
    const previous = this.overlays.get(key);
    const older = new Set(previous?.older ?? []);
    older.add(before.metadata.resourceVersion ?? '');
    if (previous) older.add(previous.object.metadata.resourceVersion ?? '');
    older.delete(after.metadata.resourceVersion ?? '');
    this.overlays.set(key, { object: after, older });
    return after;
  }
}

function statusOf(error: unknown): number | undefined {
  return error instanceof KubeApiError ? error.statusCode : undefined;
}
