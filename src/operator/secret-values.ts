// The values of referenced Secrets, read on demand by name (GET) and kept only while their
// resourceVersion is the one the metadata watch shows. A reconcile asks for exactly the
// Secrets its object references, in the object's own namespace; nothing else is ever read.
import { KubeApiError } from '../runtime/kube/errors.js';
import type { KubeClient } from '../runtime/kube/client.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import type { ResourceType } from '../runtime/kube/resource.js';
import type { IndexedStore } from '../runtime/cache/store.js';
import type { Outcome } from '../reconcilers/agentdeployment/ports.js';
import type { SecretSource } from '../reconcilers/agentdeployment/secrets.js';
import type { SecretMetadata } from './secret-metadata.js';

const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };

export class SecretValues {
  private readonly values = new Map<string, SecretSource>();

  constructor(
    private readonly client: KubeClient,
    private readonly metadata: IndexedStore<SecretMetadata>,
  ) {}

  /** Reads each named Secret whose value here is older than the watch says (one GET each). */
  async load(namespace: string, names: readonly string[], signal: AbortSignal): Promise<Outcome<void>> {
    for (const name of names) {
      const key = `${namespace}/${name}`;
      const known = this.metadata.get(key);
      if (!known) {
        this.values.delete(key);
        continue;
      }
      if (this.values.get(key)?.metadata?.resourceVersion === known.metadata.resourceVersion) continue;
      try {
        const secret = await this.client.get<KubeObject & SecretSource>(SECRETS, namespace, name, signal);
        this.values.set(key, {
          metadata: { resourceVersion: secret.metadata.resourceVersion ?? '' },
          ...(secret.data ? { data: secret.data } : {}),
          ...(secret.stringData ? { stringData: secret.stringData } : {}),
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
            message: `reading Secret "${name}" failed${status === undefined ? '' : ` (HTTP ${status})`}`,
            ...(status === undefined ? {} : { status }),
          },
        };
      }
    }
    return { ok: true, value: undefined };
  }

  /** The value last read, while the watch still knows the Secret. */
  get(namespace: string, name: string): SecretSource | undefined {
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
