// examples/ must apply as it is: valid objects, every reference resolvable inside the
// folder, AgentDeployments valid under the API's own schema, and the ids they use really
// the control-plane emulator's defaults for its default API key.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentDeployment } from '../../src/api/agentdeployment/resource.js';
import {
  DEFAULT_API_KEY,
  startControlPlaneEmulator,
  type ControlPlaneEmulator,
} from '../../src/sim/controlplane/index.js';
import { type Manifest, parseManifests } from './support/helm.js';
import { validateAgainstKubernetesSchemas } from './support/kubernetes-schema.js';
import { EXAMPLES_DIR, REPO_ROOT } from './support/paths.js';

const NAMESPACE = 'agents-demo';

async function loadExamples(dir: string): Promise<Manifest[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const manifests: Manifest[] = [];
  for (const file of files) manifests.push(...parseManifests(await readFile(join(dir, file), 'utf8'), file));
  return manifests;
}

const examples = await loadExamples(EXAMPLES_DIR);
const agents = examples.filter((m) => m.kind === 'AgentDeployment').map((m) => AgentDeployment.parse(m));

function hasKey(kind: 'Secret' | 'ConfigMap', name: string, key?: string): boolean {
  const found = examples.find(
    (m) => m.kind === kind && m.metadata.name === name && m.metadata.namespace === NAMESPACE,
  );
  if (!found) return false;
  if (key === undefined) return true;
  const data = { ...(found['data'] as object | undefined), ...(found['stringData'] as object | undefined) };
  return key in data;
}

describe('examples/', () => {
  it('holds the namespace first, then the Secrets, ConfigMaps and both kinds of AgentDeployment', async () => {
    const files = (await readdir(EXAMPLES_DIR)).filter((f) => f.endsWith('.yaml')).sort();
    expect(files[0]).toBe('00-namespace.yaml');
    expect(examples[0]).toMatchObject({ kind: 'Namespace', metadata: { name: NAMESPACE } });
    expect(agents.map((a) => a.spec.source).sort()).toEqual(['external_container', 'repo_host']);
  });

  it('puts every namespaced object into agents-demo', () => {
    for (const manifest of examples.filter((m) => m.kind !== 'Namespace')) {
      expect(manifest.metadata.namespace, `${manifest.kind}/${manifest.metadata.name}`).toBe(NAMESPACE);
    }
  });

  it('validates the built-in objects against the Kubernetes schemas', async () => {
    const problems: string[] = [];
    for (const manifest of examples.filter((m) => m.kind !== 'AgentDeployment')) {
      const outcome = await validateAgainstKubernetesSchemas(manifest);
      expect(outcome.known, `${manifest.kind} has a schema`).toBe(true);
      problems.push(...outcome.problems);
    }
    expect(problems).toEqual([]);
  });

  it('refers only to Secrets, keys and ConfigMaps that the examples create', () => {
    for (const agent of agents) {
      for (const secret of agent.spec.secrets ?? []) {
        const ref = secret.valueFrom?.secretKeyRef;
        const configMapRef = secret.valueFrom?.configMapKeyRef;
        if (configMapRef !== undefined)
          expect(
            hasKey('ConfigMap', configMapRef.name, configMapRef.key),
            `${agent.metadata.name}: configMap ${configMapRef.name}/${configMapRef.key}`,
          ).toBe(true);
        if (ref === undefined) continue; // a plain value refers to nothing
        expect(
          hasKey('Secret', ref.name, ref.key),
          `${agent.metadata.name}: secret ${ref.name}/${ref.key}`,
        ).toBe(true);
      }
      for (const source of agent.spec.envFrom ?? []) {
        const [kind, name] = source.configMapRef
          ? (['ConfigMap', source.configMapRef.name] as const)
          : (['Secret', source.secretRef?.name ?? ''] as const);
        expect(hasKey(kind, name), `${agent.metadata.name}: envFrom ${kind} ${name}`).toBe(true);
      }
      const resourceSpec = agent.spec.sourceConfig?.resourceSpec;
      for (const pullSecret of resourceSpec?.imagePullSecrets ?? []) {
        expect(hasKey('Secret', pullSecret.name), `image pull secret ${pullSecret.name}`).toBe(true);
      }
      for (const volume of (resourceSpec?.volumes ?? []) as Array<Record<string, unknown>>) {
        const configMap = volume['configMap'] as { name?: string } | undefined;
        const secret = volume['secret'] as { secretName?: string } | undefined;
        if (configMap?.name)
          expect(hasKey('ConfigMap', configMap.name), `configMap ${configMap.name}`).toBe(true);
        if (secret?.secretName)
          expect(hasKey('Secret', secret.secretName), `secret ${secret.secretName}`).toBe(true);
      }
    }
  });

  it('shows every shape of environment variable: value, secretKeyRef, configMapKeyRef, envFrom', () => {
    const shapes = new Set<string>();
    for (const agent of agents) {
      for (const secret of agent.spec.secrets ?? []) {
        if (secret.value !== undefined) shapes.add('value');
        if (secret.valueFrom?.secretKeyRef) shapes.add('secretKeyRef');
        if (secret.valueFrom?.configMapKeyRef) shapes.add('configMapKeyRef');
      }
      if ((agent.spec.envFrom ?? []).length > 0) shapes.add('envFrom');
    }
    expect([...shapes].sort()).toEqual(['configMapKeyRef', 'envFrom', 'secretKeyRef', 'value']);
  });

  it('shows volumes of each kind, mounts that name them, an init container and a native sidecar', () => {
    const external = agents.find((a) => a.spec.source === 'external_container');
    const resourceSpec = external?.spec.sourceConfig?.resourceSpec;
    const volumes = (resourceSpec?.volumes ?? []) as Array<Record<string, unknown>>;
    for (const kind of ['configMap', 'emptyDir', 'secret'])
      expect(
        volumes.some((v) => kind in v),
        kind,
      ).toBe(true);
    const volumeNames = new Set(volumes.map((v) => v['name']));
    for (const mount of resourceSpec?.volumeMounts ?? []) expect(volumeNames.has(mount.name)).toBe(true);
    expect(resourceSpec?.initContainers?.length).toBeGreaterThan(0);
    expect(resourceSpec?.sidecars?.some((s) => s.restartPolicy === 'Always')).toBe(true);
    expect(external?.spec.sourceConfig?.listenerId).toBeDefined();
  });

  it('keeps the Argo CD Application out of examples/ (in deploy/argocd/), and points it at examples/', async () => {
    const file = join(REPO_ROOT, 'deploy', 'argocd', 'agents-application.yaml');
    const [application] = parseManifests(await readFile(file, 'utf8'), file);
    expect(application).toMatchObject({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      spec: {
        source: { path: 'examples' },
        destination: { namespace: NAMESPACE },
        syncPolicy: { automated: { prune: true, selfHeal: true } },
      },
    });
  });

  it('holds, in every subfolder too, only kinds a cluster with the operator serves (what Flux applies)', async () => {
    const kinds = new Set<string>();
    for (const entry of await readdir(EXAMPLES_DIR, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) continue;
      const file = join(entry.parentPath, entry.name);
      for (const manifest of parseManifests(await readFile(file, 'utf8'), file))
        kinds.add(`${manifest.apiVersion}/${manifest.kind}`);
    }
    expect([...kinds].sort()).toEqual([
      'agentplatform.io/v1alpha1/AgentDeployment',
      'v1/ConfigMap',
      'v1/Namespace',
      'v1/Secret',
    ]);
  });
});

describe('the ids the examples use', () => {
  let emulator: ControlPlaneEmulator;
  beforeAll(async () => {
    emulator = await startControlPlaneEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator.close();
  });

  async function get(path: string): Promise<unknown> {
    const response = await fetch(`${emulator.url}${path}`, {
      headers: { 'X-Api-Key': DEFAULT_API_KEY, Accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    return response.json();
  }

  it('are the emulator default key’s integration and listener', async () => {
    const integrations = (await get('/v1/integrations/repo_host/install')) as Array<{ id: string }>;
    const listeners = (await get('/v2/listeners')) as {
      resources: Array<{ id: string; compute_config: { cluster_namespaces: string[] } }>;
    };
    const repoHost = agents.find((a) => a.spec.source === 'repo_host');
    const external = agents.find((a) => a.spec.source === 'external_container');
    expect(integrations.map((i) => i.id)).toContain(repoHost?.spec.sourceConfig?.integrationId);
    const listener = listeners.resources.find((l) => l.id === external?.spec.sourceConfig?.listenerId);
    expect(listener).toBeDefined();
    expect(listener?.compute_config.cluster_namespaces).toContain(
      external?.spec.sourceConfig?.listenerConfig?.clusterNamespace,
    );
  });
});
