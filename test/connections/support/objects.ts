// Connection objects, Secrets and a lookup over maps, as the caches would hold them.
import type { PlatformConnectionObject } from '../../../src/api/connection/index.js';
import type { ConnectionLookup } from '../../../src/connections/registry.js';
import type { SecretSource } from '../../../src/reconcilers/agentdeployment/secrets.js';

type Spec = PlatformConnectionObject['spec'];

export function connection(
  kind: PlatformConnectionObject['kind'],
  namespace: string | undefined,
  name: string,
  spec: Spec,
  ready = true,
): PlatformConnectionObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind,
    metadata: { name, ...(namespace === undefined ? {} : { namespace }), generation: 1, uid: `uid-${name}` },
    spec,
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          reason: ready ? 'Authenticated' : 'Unauthorized',
          message: ready ? 'the key authenticates' : 'the control plane refuses the credential (HTTP 401)',
          lastTransitionTime: '2026-01-01T00:00:00Z',
          observedGeneration: 1,
        },
      ],
    },
  };
}

export function secret(value: string, resourceVersion = '1', key = 'apiKey'): SecretSource {
  return { metadata: { resourceVersion }, data: { [key]: Buffer.from(value).toString('base64') } };
}

export class MapLookup implements ConnectionLookup {
  readonly connections = new Map<string, PlatformConnectionObject>();
  readonly namespaces = new Map<string, Record<string, string>>();
  readonly secrets = new Map<string, SecretSource>();

  add(object: PlatformConnectionObject): this {
    this.connections.set(`${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`, object);
    return this;
  }

  connection(kind: PlatformConnectionObject['kind'], namespace: string | undefined, name: string) {
    return this.connections.get(`${kind}/${namespace ?? ''}/${name}`);
  }

  namespaceLabels(namespace: string) {
    return this.namespaces.get(namespace);
  }

  secret = (namespace: string, name: string): SecretSource | undefined =>
    this.secrets.get(`${namespace}/${name}`);
}
