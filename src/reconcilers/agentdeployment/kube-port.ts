// Binds the reconciler's KubePort to the controller runtime: the kit's cached object port
// (reads from the informer's cache overlaid with this process's own writes, writes through
// the KubeClient, events through the aggregating recorder) and the Secret and ConfigMap values
// the spec references, read by name on demand.
import type { Outcome } from './ports.js';
import type { KubePort } from './ports.js';
import type { AgentDeploymentView } from './object.js';
import type { KubeObject } from '../../runtime/kube/objects.js';
import { CachedObjectPort, type CachedObjectPortOptions } from '../../runtime/reconcile/object-port.js';
import type { SecretValues } from '../../runtime/secrets/secret-values.js';

export type AgentDeploymentObject = AgentDeploymentView & KubeObject;

export interface KubePortOptions extends CachedObjectPortOptions<AgentDeploymentObject> {
  secrets: SecretValues;
  /** The referenced ConfigMaps' values; without it, a configMapKeyRef reads as not found. */
  configMaps?: SecretValues;
}

export class AgentDeploymentKubePort
  extends CachedObjectPort<AgentDeploymentObject>
  implements KubePort<AgentDeploymentObject>
{
  private readonly secrets: SecretValues;
  private readonly configMaps: SecretValues | undefined;

  constructor(options: KubePortOptions) {
    super(options);
    this.secrets = options.secrets;
    this.configMaps = options.configMaps;
  }

  getSecret(namespace: string, name: string): ReturnType<SecretValues['get']> {
    return this.secrets.get(namespace, name);
  }

  loadSecrets(namespace: string, names: readonly string[], signal: AbortSignal): Promise<Outcome<void>> {
    return this.secrets.load(namespace, names, signal);
  }

  getConfigMap(namespace: string, name: string): ReturnType<SecretValues['get']> {
    return this.configMaps?.get(namespace, name);
  }

  async loadConfigMaps(namespace: string, names: readonly string[], signal: AbortSignal): Promise<Outcome<void>> {
    return this.configMaps ? this.configMaps.load(namespace, names, signal) : { ok: true, value: undefined };
  }
}
