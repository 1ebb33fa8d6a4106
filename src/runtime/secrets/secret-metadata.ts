// The Secret cache holds names and resourceVersions only. Everything else a list or watch
// returns (data, stringData, and annotations such as kubectl's last-applied-configuration,
// which carries the data too) is dropped as it arrives, so the operator's memory never keeps
// the values of Secrets that no AgentDeployment references. Values are read on demand, by
// name, for referenced Secrets only (secret-values.ts). The watch still tells the operator
// when a referenced Secret changes: its resourceVersion moves.
//
// The API server could send metadata only (Accept: ...;as=PartialObjectMetadata), but the
// bundled Kubernetes emulator does not serve that form; stripping on arrival works with both.
import type { Logger } from 'pino';
import type { KubeClient } from '../kube/client.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource.js';
import { Informer } from '../manager/informer.js';
import { clientListWatch, type ListWatchSource } from '../reflector/list-watch.js';
import { transformedSource } from '../reflector/transformed-source.js';

const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets' };

export type SecretMetadata = KubeObject;

/** Only what identifies the Secret and its version. */
export function secretMetadataOf(secret: KubeObject): SecretMetadata {
  return metadataOf(secret, 'Secret');
}

/** Only what identifies an object (a Secret, a ConfigMap) and its version. */
export function metadataOf(object: KubeObject, kind: string): KubeObject {
  const { name, namespace, uid, resourceVersion } = object.metadata;
  return {
    apiVersion: 'v1',
    kind,
    metadata: {
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(uid !== undefined ? { uid } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    },
  };
}

export function metadataOnly(source: ListWatchSource, kind = 'Secret'): ListWatchSource<SecretMetadata> {
  return transformedSource(source, (object) => metadataOf(object, kind), `${source.description} (metadata only)`);
}

/** An informer of Secret names and resourceVersions in `namespaces` (all when empty). */
export function secretMetadataInformer(
  client: KubeClient,
  namespaces: readonly string[],
  logger: Logger,
): Informer<SecretMetadata> {
  return metadataInformer(client, SECRETS, 'Secret', namespaces, logger);
}

/** An informer of names and resourceVersions of one core kind in `namespaces` (all when empty). */
export function metadataInformer(
  client: KubeClient,
  type: ResourceType,
  kind: string,
  namespaces: readonly string[],
  logger: Logger,
): Informer<KubeObject> {
  const scopes = namespaces.length > 0 ? [...new Set(namespaces)] : [undefined];
  return new Informer<SecretMetadata>({
    logger,
    sources: scopes.map((namespace) => ({
      source: metadataOnly(clientListWatch(client, type, namespace === undefined ? {} : { namespace }), kind),
      inScope: namespace === undefined ? () => true : (object) => object.metadata.namespace === namespace,
    })),
  });
}
