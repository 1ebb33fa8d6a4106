// The chart's `sharding.shards`: one Deployment per shard plus the default shard, each the
// unsharded Deployment but for its name, its shard label (in the selector too, so no two
// Deployments claim each other's pods) and `--shard`; the operator's own parser accepts every
// rendering; the schema refuses what would break a Lease or a label; NOTES names the shards.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOperatorConfig } from '../../src/operator/config.js';
import { SHARD_LABEL } from '../../src/operator/shard.js';
import { helmTemplate, RELEASE_NAME, RELEASE_NAMESPACE, renderChart, type Manifest } from './support/helm.js';
import { startKube, type KubeUnderTest } from './support/kube-emulator.js';
import { validateAgainstKubernetesSchemas } from './support/kubernetes-schema.js';
import { CHART_DIR, HELM, requireTool } from './support/paths.js';
import { run } from './support/run.js';

interface Deployment extends Manifest {
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { containers: Array<{ args: string[] }> };
    };
  };
}

const SHARDED = { values: { sharding: { shards: ['team-a', 'b'] } } };

function deployments(manifests: Manifest[]): Deployment[] {
  return manifests.filter((m): m is Deployment => m.kind === 'Deployment');
}

function argsOf(deployment: Deployment): string[] {
  return deployment.spec.template.spec.containers[0]?.args ?? [];
}

/** The Deployment with what sharding changes taken out: it must equal the unsharded one. */
function withoutShard(deployment: Deployment): unknown {
  const copy = structuredClone(deployment);
  copy.metadata.name = RELEASE_NAME;
  delete copy.metadata.labels?.[SHARD_LABEL];
  delete copy.spec.selector.matchLabels[SHARD_LABEL];
  delete copy.spec.template.metadata.labels[SHARD_LABEL];
  const container = copy.spec.template.spec.containers[0];
  if (container) container.args = container.args.filter((arg) => !arg.startsWith('--shard='));
  return copy;
}

let unsharded: Deployment[];
let sharded: Deployment[];

beforeAll(async () => {
  unsharded = deployments(await renderChart({}));
  sharded = deployments(await renderChart(SHARDED));
});

describe('the chart with sharding.shards', () => {
  it('renders no shard when the list is empty: one Deployment, no --shard', () => {
    expect(unsharded.map((d) => d.metadata.name)).toEqual([RELEASE_NAME]);
    expect(argsOf(unsharded[0] as Deployment).some((arg) => arg.startsWith('--shard'))).toBe(false);
  });

  it('renders the default shard and one Deployment per shard, each selecting only its own pods', () => {
    expect(
      sharded.map((d) => [d.metadata.name, argsOf(d).find((arg) => arg.startsWith('--shard='))]),
    ).toEqual([
      [`${RELEASE_NAME}-shard-default`, '--shard=default'],
      [`${RELEASE_NAME}-shard-team-a`, '--shard=team-a'],
      [`${RELEASE_NAME}-shard-b`, '--shard=b'],
    ]);
    for (const deployment of sharded) {
      const shard = deployment.metadata.name.replace(`${RELEASE_NAME}-shard-`, '');
      expect(deployment.spec.selector.matchLabels[SHARD_LABEL]).toBe(shard);
      // Another Deployment's pods never match this selector.
      for (const other of sharded.filter((d) => d !== deployment)) {
        const podLabels = other.spec.template.metadata.labels;
        const matches = Object.entries(deployment.spec.selector.matchLabels).every(
          ([key, value]) => podLabels[key] === value,
        );
        expect(matches, `${deployment.metadata.name} selects ${other.metadata.name}'s pods`).toBe(false);
      }
    }
  });

  it('is otherwise the unsharded Deployment: same pod, probes, security, volumes, flags', () => {
    for (const deployment of sharded) expect(withoutShard(deployment)).toEqual(unsharded[0]);
  });

  it('passes the Kubernetes schemas and the operator parses each shard to its own Lease and selector', async () => {
    for (const deployment of sharded) {
      const outcome = await validateAgainstKubernetesSchemas(deployment);
      expect(outcome.problems).toEqual([]);
      const parsed = parseOperatorConfig({
        argv: argsOf(deployment).slice(1),
        env: { POD_NAMESPACE: RELEASE_NAMESPACE },
        readFile: () => 'key-from-the-mounted-secret\n',
      });
      if (parsed.help) throw new Error('the chart made the operator print its help');
      expect(parsed.config.leaderElect).toBe(true);
      expect(`${RELEASE_NAME}-shard-${parsed.config.shard ?? ''}`).toBe(deployment.metadata.name);
    }
  });

  it('refuses a shard named default, a name that is not a DNS label, and a name given twice', async () => {
    for (const shards of [['default'], ['Team-A'], ['a_b'], ['a', 'a'], ['x'.repeat(64)]]) {
      const result = await helmTemplate({ values: { sharding: { shards } } });
      expect(result.code, JSON.stringify(shards)).not.toBe(0);
      expect(result.stderr).toMatch(/sharding\.shards/);
    }
  });
});

describe('NOTES.txt with sharding on', () => {
  let kube: KubeUnderTest;
  let helmHome: string;
  beforeAll(async () => {
    kube = await startKube();
    helmHome = await mkdtemp(join(tmpdir(), 'helm-home-'));
  });
  afterAll(async () => {
    await kube?.stop();
    await rm(helmHome, { recursive: true, force: true });
  });

  it('names the shards and how to watch each roll out', async () => {
    const result = await run(
      requireTool(HELM),
      [
        '--kubeconfig',
        kube.kubeconfig,
        'install',
        RELEASE_NAME,
        CHART_DIR,
        '--dry-run',
        '--namespace',
        RELEASE_NAMESPACE,
        '--set',
        'sharding.shards={team-a,b}',
      ],
      { env: { ...process.env, KUBECONFIG: kube.kubeconfig, HOME: helmHome } },
    );
    expect(result.code, result.stderr).toBe(0);
    const notes = result.stdout.slice(result.stdout.indexOf('NOTES:'));
    expect(notes).toContain(
      'Sharding: shards default (objects without the agentplatform.io/shard label), team-a, b',
    );
    for (const shard of ['default', 'team-a', 'b']) {
      expect(notes).toContain(`rollout status deployment/${RELEASE_NAME}-shard-${shard}`);
    }
    expect(notes).toContain('kubectl label agd <name> agentplatform.io/shard=<shard> --overwrite');
  });
});
