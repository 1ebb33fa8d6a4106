// Where the operator finds its cluster: an explicit kubeconfig file, the in-cluster service
// account, or client-node's default search (KUBECONFIG, ~/.kube/config, then in-cluster).
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from './client.js';
import { KubeConfigTransport } from './transport.js';

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

/** A KubeClient and the transport behind it (close the transport on shutdown). */
export function kubeClientFrom(config: KubeConfig): { client: KubeClient; transport: KubeConfigTransport } {
  const transport = new KubeConfigTransport(config);
  return { client: new KubeClient(transport), transport };
}
