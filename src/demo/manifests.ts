// Reads the manifests the demo applies (crds/ and examples/) and applies them the way
// `kubectl apply` would for these kinds: create, or merge-patch what exists.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import type { KubeClient } from '../runtime/kube/client.js';
import { isAlreadyExists } from '../runtime/kube/errors.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import type { ResourceType } from '../runtime/kube/resource.js';

/** The kinds the demo's manifests use, and where each is served. */
const KINDS: Record<string, ResourceType> = {
  'v1/Namespace': { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
  'v1/Secret': { group: '', version: 'v1', plural: 'secrets' },
  'v1/ConfigMap': { group: '', version: 'v1', plural: 'configmaps' },
  'apiextensions.k8s.io/v1/CustomResourceDefinition': {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
  'agentplatform.io/v1alpha1/AgentDeployment': {
    group: 'agentplatform.io',
    version: 'v1alpha1',
    plural: 'agentdeployments',
  },
  'agentplatform.io/v1alpha1/PlatformConnection': {
    group: 'agentplatform.io',
    version: 'v1alpha1',
    plural: 'platformconnections',
  },
};

/** A manifest as the demo needs it: every object names itself. */
export type Manifest = KubeObject & { metadata: KubeObject['metadata'] & { name: string } };

export async function readManifests(directory: string): Promise<Manifest[]> {
  const files = (await readdir(directory)).filter((name) => /\.ya?ml$/.test(name)).sort();
  const documents: Manifest[] = [];
  for (const file of files) {
    const text = await readFile(join(directory, file), 'utf8');
    for (const [index, document] of yaml.loadAll(text).entries()) {
      if (!document || typeof document !== 'object') continue;
      const object = document as KubeObject;
      if (typeof object.metadata?.name !== 'string' || object.metadata.name === '') {
        throw new Error(`${join(directory, file)}, document ${index + 1}: metadata.name is required`);
      }
      documents.push(object as Manifest);
    }
  }
  return documents;
}

export function resourceTypeOf(object: KubeObject): ResourceType {
  const type = KINDS[`${object.apiVersion ?? ''}/${object.kind ?? ''}`];
  if (!type)
    throw new Error(
      `the demo cannot apply ${object.apiVersion ?? '?'} ${object.kind ?? '?'} (${object.metadata.name})`,
    );
  return type;
}

export async function applyObject(client: KubeClient, object: Manifest): Promise<void> {
  const type = resourceTypeOf(object);
  try {
    await client.create(type, object);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    // Only the content is re-applied: the object's annotations carry the operator's
    // records (the deployment id) and must survive a second apply.
    const { metadata, apiVersion: _apiVersion, kind: _kind, ...content } = object;
    await client.mergePatch(type, metadata.namespace, metadata.name, content);
  }
}
