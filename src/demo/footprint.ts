// What the demo owns in a cluster, and how it gives it back. Against a real cluster the demo
// must touch nothing else: it works only in namespaces of its own (refusing one that exists
// without its label), labels everything it creates, installs the CRD only when it is missing,
// and at the end deletes what it created. AgentDeployments are deleted while the demo's own
// operator still runs, so that their finalizer is removed by the operator once the deployment
// is gone; only one that outlives a grace period has its finalizer stripped, and the demo
// says so.
import { FINALIZER } from '../api/agentdeployment/names.js';
import { CONNECTION_FINALIZER } from '../api/connection/names.js';
import { pollUntil } from './poll-until.js';
import { AGENT_DEPLOYMENTS } from '../operator/operator.js';
import type { KubeClient } from '../runtime/kube/client.js';
import { isNotFound } from '../runtime/kube/errors.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import type { ResourceType } from '../runtime/kube/resource.js';
import { resourceTypeOf, type Manifest } from './manifests.js';

export const DEMO_LABEL = 'app.kubernetes.io/managed-by';
export const DEMO_LABEL_VALUE = 'agent-operator-demo';
const DEMO_SELECTOR = `${DEMO_LABEL}=${DEMO_LABEL_VALUE}`;

const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
};
const PLATFORM_CONNECTIONS: ResourceType = {
  group: 'agentplatform.io',
  version: 'v1alpha1',
  plural: 'platformconnections',
};
/** Namespaced kinds the demo creates besides AgentDeployments; deleted by the demo's label. */
const SUPPORTING_KINDS: ResourceType[] = [
  { group: '', version: 'v1', plural: 'secrets' },
  { group: '', version: 'v1', plural: 'configmaps' },
  { group: 'agentplatform.io', version: 'v1alpha1', plural: 'tracedeletions' },
  { group: 'agentplatform.io', version: 'v1alpha1', plural: 'exampledeletions' },
  // After the agents that use it: its finalizer holds it while any does.
  PLATFORM_CONNECTIONS,
];
const POLL_MS = 200;

/** The object with the demo's label added, so that clean-up can find exactly what it made. */
export function labelled<T extends KubeObject>(object: T): T {
  return {
    ...object,
    metadata: { ...object.metadata, labels: { ...object.metadata.labels, [DEMO_LABEL]: DEMO_LABEL_VALUE } },
  };
}

/** The namespaces the manifests live in: Namespace objects and every namespaced object's. */
export function namespacesOf(manifests: Manifest[]): string[] {
  const names = new Set<string>();
  for (const manifest of manifests) {
    if (manifest.kind === 'Namespace') names.add(manifest.metadata.name);
    else if (resourceTypeOf(manifest).namespaced !== false) {
      if (!manifest.metadata.namespace)
        throw new Error(
          `${manifest.kind ?? '?'} ${manifest.metadata.name}: the demo needs metadata.namespace`,
        );
      names.add(manifest.metadata.namespace);
    }
  }
  return [...names].sort();
}

export class DemoFootprint {
  private readonly installedCrds: string[] = [];
  private readonly namespaces = new Set<string>();

  constructor(
    private readonly client: KubeClient,
    private readonly say: (line: string) => void,
  ) {}

  /** Installs the CRDs that are missing and waits until they serve; an installed one is left as it is. */
  async installCrds(crds: Manifest[], deadline: number): Promise<void> {
    for (const crd of crds) {
      if (await this.exists(CRDS, undefined, crd.metadata.name)) {
        this.say(`using the CustomResourceDefinition ${crd.metadata.name} already installed`);
        continue;
      }
      await this.client.create(CRDS, labelled(crd));
      this.installedCrds.push(crd.metadata.name);
      const what = () => `CRD ${crd.metadata.name} to be Established`;
      await pollUntil(deadline, what, POLL_MS, async () => {
        const current = await this.client.get(CRDS, undefined, crd.metadata.name);
        const conditions = (current.status as { conditions?: Array<{ type: string; status: string }> })
          ?.conditions;
        return conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
      });
      this.say(`installed the CustomResourceDefinition ${crd.metadata.name}`);
    }
  }

  /**
   * Claims the namespaces for the demo. One that exists without the demo's label belongs to
   * someone else: refused. One with the label is a previous run's (--keep, or killed):
   * returned, to be emptied by `clear` once the operator runs.
   */
  async claimNamespaces(names: string[]): Promise<string[]> {
    const leftovers: string[] = [];
    for (const name of names) {
      const existing = await this.find(NAMESPACES, undefined, name);
      if (existing && existing.metadata.labels?.[DEMO_LABEL] !== DEMO_LABEL_VALUE) {
        throw new Error(
          `namespace ${name} already exists and was not created by the demo (no label ${DEMO_SELECTOR}); ` +
            'the demo works only in a namespace of its own: delete it, or point --examples at manifests in another namespace',
        );
      }
      if (existing) leftovers.push(name);
      this.namespaces.add(name);
    }
    return leftovers;
  }

  /** Deletes everything in a demo namespace, AgentDeployments first, through the running operator. */
  async clear(namespace: string, graceMs: number): Promise<void> {
    const agents = await this.client.listAll(AGENT_DEPLOYMENTS, { namespace });
    for (const agent of agents.items)
      await this.deleteQuietly(AGENT_DEPLOYMENTS, namespace, agent.metadata.name ?? '');
    await this.finishDeletions(AGENT_DEPLOYMENTS, FINALIZER, namespace, undefined, graceMs);
    for (const type of SUPPORTING_KINDS) {
      const owned = await this.client.listAll(type, { namespace, labelSelector: DEMO_SELECTOR });
      for (const object of owned.items) await this.deleteQuietly(type, namespace, object.metadata.name ?? '');
    }
    // A connection leaves once no agent uses it; a run that follows must not find it terminating.
    await this.finishDeletions(PLATFORM_CONNECTIONS, CONNECTION_FINALIZER, namespace, DEMO_SELECTOR, graceMs);
  }

  /**
   * Waits for the operator to finish the deletions of `type` in `namespace` (it removes its
   * `finalizer` when done); past `graceMs`, removes that finalizer itself and says so.
   */
  private async finishDeletions(
    type: ResourceType,
    finalizer: string,
    namespace: string,
    labelSelector: string | undefined,
    graceMs: number,
  ): Promise<void> {
    const remaining = async () =>
      (await this.client.listAll(type, { namespace, ...(labelSelector ? { labelSelector } : {}) })).items;
    const deadline = Date.now() + graceMs;
    while ((await remaining()).length > 0) {
      if (Date.now() > deadline) break;
      await sleep(POLL_MS);
    }
    for (const object of await remaining()) {
      const finalizers = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      await this.client
        .mergePatch(type, namespace, object.metadata.name ?? '', { metadata: { finalizers } })
        .catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
      this.say(
        `  ${namespace}/${object.metadata.name ?? '?'}: the operator did not finish its deletion in ${graceMs / 1000}s; finalizer removed`,
      );
    }
  }

  /** Removes what the demo created: its namespaces' contents, the namespaces, and a CRD it installed. */
  async cleanUp(graceMs: number): Promise<void> {
    for (const namespace of this.namespaces) {
      await this.clear(namespace, graceMs);
      await this.deleteQuietly(NAMESPACES, undefined, namespace);
      this.say(`removed namespace ${namespace} and the demo's objects in it`);
    }
    for (const name of this.installedCrds) {
      // Deleting a CRD deletes every object of its kind: keep it if anyone else made one.
      const others = await this.client.list(AGENT_DEPLOYMENTS, { limit: 1 }).catch(() => undefined);
      if (others && others.items.length > 0) {
        this.say(`kept the CustomResourceDefinition ${name}: AgentDeployments outside the demo use it`);
        continue;
      }
      await this.deleteQuietly(CRDS, undefined, name);
      this.say(`removed the CustomResourceDefinition ${name} (the demo installed it)`);
    }
  }

  /** Whether the demo claimed or installed anything that clean-up must give back. */
  ownsAnything(): boolean {
    return this.namespaces.size > 0 || this.installedCrds.length > 0;
  }

  /** What --keep leaves in place, for the closing lines. */
  describe(): string {
    const crds = this.installedCrds.length > 0 ? ` and the CRD ${this.installedCrds.join(', ')}` : '';
    return `namespace ${[...this.namespaces].join(', ')}${crds}`;
  }

  private async find(type: ResourceType, namespace: string | undefined, name: string) {
    try {
      return await this.client.get(type, namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async exists(type: ResourceType, namespace: string | undefined, name: string): Promise<boolean> {
    return (await this.find(type, namespace, name)) !== undefined;
  }

  private async deleteQuietly(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<void> {
    try {
      await this.client.delete(type, namespace, name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
