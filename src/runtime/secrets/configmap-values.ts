// ConfigMaps referenced by valueFrom.configMapKeyRef get the Secrets' treatment: a watch of
// names and resourceVersions only (so the operator never keeps the data of ConfigMaps no
// object references, and a change wakes the objects that do), and values read by name, on
// demand, in the object's own namespace. ConfigMap values are not secret, but they are sent
// as the deployment's secrets, so they take the same careful path.
import type { Logger } from 'pino';
import type { KubeClient } from '../kube/client.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource.js';
import type { Informer } from '../manager/informer.js';
import { metadataInformer } from './secret-metadata.js';
import { SecretValues, type ValueResource } from './secret-values.js';

const CONFIG_MAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };

/** data is plain text (kept as a Secret's stringData), binaryData base64 (as a Secret's data). */
const CONFIG_MAP_VALUES: ValueResource = {
  type: CONFIG_MAPS,
  kind: 'ConfigMap',
  valuesOf: (object) => {
    const { data, binaryData } = object as KubeObject & {
      data?: Record<string, string>;
      binaryData?: Record<string, string>;
    };
    return { ...(binaryData ? { data: binaryData } : {}), ...(data ? { stringData: data } : {}) };
  },
};

/** An informer of ConfigMap names and resourceVersions in `namespaces` (all when empty). */
export function configMapMetadataInformer(
  client: KubeClient,
  namespaces: readonly string[],
  logger: Logger,
): Informer<KubeObject> {
  return metadataInformer(client, CONFIG_MAPS, 'ConfigMap', namespaces, logger);
}

/** The values of referenced ConfigMaps, read by name while the watch knows their version. */
export function configMapValues(client: KubeClient, metadata: Informer<KubeObject>): SecretValues {
  return new SecretValues(client, metadata.store, CONFIG_MAP_VALUES);
}
