// Reads the manifests the demo applies (crds/ and examples/) and applies them the way
// `kubectl apply` would for these kinds: create, or merge-patch what exists, recording the
// manifest as written in the kubectl.kubernetes.io/last-applied-configuration annotation, as
// kubectl does. With that record, a later `kubectl apply -f` of the same file is a three-way
// merge against what the demo applied (unchanged when nothing was edited), not a first apply
// that warns about the missing annotation.
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

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The annotation's value as kubectl writes it: the manifest as written, its annotations without
 * this one (an empty object when none is left, as kubectl leaves it), as JSON with sorted keys
 * and a closing newline. Byte for byte kubectl's, so that `kubectl apply` of the same file finds
 * nothing to change.
 */
export function lastAppliedConfiguration(written: Manifest): string {
  const { [LAST_APPLIED_ANNOTATION]: _previous, ...annotations } = written.metadata.annotations ?? {};
  return `${JSON.stringify(sortedKeys({ ...written, metadata: { ...written.metadata, annotations } }))}\n`;
}

/**
 * Applies `object` (what goes to the server: the manifest with the demo's label) and records
 * `written` (the manifest as its file says it) as the last applied configuration, so that
 * re-applying that file keeps the demo's label, which the file does not have.
 */
export async function applyObject(
  client: KubeClient,
  object: Manifest,
  written: Manifest = object,
): Promise<Manifest> {
  const type = resourceTypeOf(object);
  const record = { [LAST_APPLIED_ANNOTATION]: lastAppliedConfiguration(written) };
  try {
    return await client.create<Manifest>(type, {
      ...object,
      metadata: { ...object.metadata, annotations: { ...object.metadata.annotations, ...record } },
    });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    // The content, the labels and the record are re-applied; the other annotations carry
    // the operator's records (the deployment id) and must survive a second apply.
    const { metadata, apiVersion: _apiVersion, kind: _kind, ...content } = object;
    return await client.mergePatch<Manifest>(type, metadata.namespace, metadata.name, {
      ...content,
      metadata: {
        ...(metadata.labels === undefined ? {} : { labels: metadata.labels }),
        annotations: record,
      },
    });
  }
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}
