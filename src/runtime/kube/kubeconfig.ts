// client-node's full KubeConfig: every authentication kubectl knows (exec plugins, auth
// providers, merged KUBECONFIG files). The operator reaches it through loadClusterAccess
// (cluster-access.ts), which loads this module only when its light reader cannot serve.
import { KubeConfig } from '@kubernetes/client-node';

export { kubeClientFrom } from './cluster-access.js';

export type KubeConfigSource =
  { kind: 'file'; path: string; context?: string } | { kind: 'in-cluster' } | { kind: 'default' };

export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const config = new KubeConfig();
  switch (source.kind) {
    case 'file':
      config.loadFromFile(source.path);
      if (source.context) config.setCurrentContext(source.context);
      break;
    case 'in-cluster':
      config.loadFromCluster();
      break;
    case 'default':
      config.loadFromDefault();
      break;
  }
  return config;
}
