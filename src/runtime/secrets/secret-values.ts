// The values of referenced Secrets, read on demand by name (GET) and kept only while their
// resourceVersion is the one the metadata watch shows. A reconcile asks for exactly the
// Secrets its object references, in the object's own namespace; nothing else is ever read.
// The same holds ConfigMap values (configmap-values.ts), with another ValueResource.
import { KubeApiError } from '../kube/errors.js';
import type { KubeClient } from '../kube/client.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource.js';
import type { IndexedStore } from '../cache/store.js';
import type { SecretMetadata } from './secret-metadata.js';

/** A Secret's value as read: its version and data (nothing else is kept). */
export interface SecretValue {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** Whether the values are current; a failed read is a value, with a message that names no value. */
export type SecretLoad =
  | { ok: true; value: undefined }
  | { ok: false; error: { kind: 'Conflict' | 'Transient'; message: string; status?: number } };

/** Which kind of object the values are read from, and which of its fields are kept. */
export interface ValueResource {
  type: ResourceType;
  kind: string;
  /** The object's values, as a Secret holds them (data base64, stringData plain). */
  valuesOf: (object: KubeObject) => Omit<SecretValue, 'metadata'>;
}

const SECRETS: ValueResource = {
  type: { group: '', version: 'v1', plural: 'secrets' },
  kind: 'Secret',
  valuesOf: (object) => {
    const { data, stringData } = object as KubeObject & SecretValue;
    return { ...(data ? { data } : {}), ...(stringData ? { stringData } : {}) };
  },
};

export class SecretValues {
  private readonly values = new Map<string, SecretValue>();

  constructor(
    private readonly client: KubeClient,
    private readonly metadata: IndexedStore<SecretMetadata>,
    private readonly resource: ValueResource = SECRETS,
  ) {}

  /** Reads each named Secret whose value here is older than the watch says (one GET each). */
  async load(namespace: string, names: readonly string[], signal: AbortSignal): Promise<SecretLoad> {
    for (const name of names) {
      const key = `${namespace}/${name}`;
      const known = this.metadata.get(key);
      if (!known) {
        this.values.delete(key);
        continue;
      }
      if (this.values.get(key)?.metadata?.resourceVersion === known.metadata.resourceVersion) continue;
      try {
        const object = await this.client.get<KubeObject>(this.resource.type, namespace, name, signal);
        this.values.set(key, {
          metadata: { resourceVersion: object.metadata.resourceVersion ?? '' },
          ...this.resource.valuesOf(object),
        });
      } catch (error) {
        if (error instanceof KubeApiError && error.statusCode === 404) {
          this.values.delete(key);
          continue;
        }
        const status = error instanceof KubeApiError ? error.statusCode : undefined;
        return {
          ok: false,
          error: {
            kind: error instanceof KubeApiError && error.statusCode === 409 ? 'Conflict' : 'Transient',
            message: `reading ${this.resource.kind} "${name}" failed${status === undefined ? '' : ` (HTTP ${status})`}`,
            ...(status === undefined ? {} : { status }),
          },
        };
      }
    }
    return { ok: true, value: undefined };
  }

  /** The value last read, while the watch still knows the Secret. */
  get(namespace: string, name: string): SecretValue | undefined {
    const key = `${namespace}/${name}`;
    return this.metadata.get(key) ? this.values.get(key) : undefined;
  }

  /** Drops a value no object needs any more (the Secret changed or went, and nothing references it). */
  forget(key: string): void {
    this.values.delete(key);
  }

  get size(): number {
    return this.values.size;
  }
}
