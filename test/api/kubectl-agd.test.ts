// An AgentDeployment as a platform engineer meets it, through the real kubectl against the
// Kubernetes emulator serving the generated CRD. `kubectl apply` rejects a field a source
// requires, naming it. `kubectl get agd` shows READY, STATUS (the Ready reason), REVISION
// (active, by its short id), LATEST (newest revision's state), SUSPENDED and AGE, under 100
// characters; `-o wide` adds the source, commit, image version, deployment id, URL and the
// Ready message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dump } from 'js-yaml';
import { agentDeploymentCrd } from '../../src/api/crd/agentdeployment-crd.js';
import { startKube, type KubeUnderTest } from '../packaging/support/kube-emulator.js';

let kube: KubeUnderTest;

async function kubectl(args: string[], input?: string): Promise<string> {
  const result = await kube.kubectl(args, input);
  expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

function agent(name: string, suspend: boolean, connection?: string): object {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace: 'default' },
    spec: {
      source: 'external_container',
      sourceConfig: { listenerId: '53a22649-b624-5585-b661-5f2b13429240' },
      sourceRevisionConfig: { imageUri: `registry.example.com/${name}:1.0.0` },
      suspend,
      ...(connection === undefined
        ? {}
        : { connectionRef: { kind: 'PlatformConnection', name: connection } }),
    },
  };
}

const NOW = '2026-01-01T00:00:00Z';

beforeAll(async () => {
  const started = await startKube();
  if (typeof started === 'string') throw new Error(started);
  kube = started;
  await kubectl(['apply', '-f', '-'], dump(agentDeploymentCrd()));
  await kubectl([
    'wait',
    '--for=condition=Established',
    '--timeout=30s',
    'crd/agentdeployments.agentplatform.io',
  ]);
  await kubectl(
    ['apply', '-f', '-'],
    [agent('rolling', false, 'eu'), agent('held', true)].map((o) => dump(o)).join('---\n'),
  );
  // A rollout in progress: the active revision still serves while the new one builds.
  const rolling = {
    status: {
      deploymentId: '0f6e5a7c-1111-4222-8333-944445555666',
      activeRevisionId: 'a1a1a1a1-0000-4000-8000-000000000001',
      latestRevisionId: 'b2b2b2b2-0000-4000-8000-000000000002',
      latestRevisionStatus: 'BUILDING',
      activeRevision: {
        shortId: 'a1a1a1a1',
        image: 'registry.example.com/rolling:1.0.0',
        imageVersion: '1.0.0',
        deployedAt: NOW,
      },
      latestRevision: { shortId: 'b2b2b2b2', image: 'registry.example.com/rolling:1.1.0', createdAt: NOW },
      customUrl: 'https://rolling.agents.example.com',
      secretVersions: [
        { name: 'agent-secrets', resourceVersion: '4711' },
        { name: 'registry-credentials', resourceVersion: '12' },
      ],
      url: 'https://rolling.agents.example.com',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'RevisionInProgress',
          message: 'revision b2b2b2b2 is BUILDING',
          lastTransitionTime: NOW,
        },
      ],
    },
  };
  await kubectl([
    'patch',
    'agd',
    'rolling',
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify(rolling),
  ]);
}, 60_000);

afterAll(async () => {
  await kube?.stop();
});

/** Cells by column name, cut at the header's offsets: kubectl leaves a missing value blank. */
function table(text: string): { header: string[]; rows: Map<string, Record<string, string>> } {
  const [first = '', ...lines] = text.trimEnd().split('\n');
  const starts = [...first.matchAll(/\S+/g)].map((match) => ({ name: match[0], at: match.index }));
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines) {
    const cells: Record<string, string> = {};
    starts.forEach(({ name, at }, i) => {
      cells[name] = line.slice(at, starts[i + 1]?.at ?? line.length).trim();
    });
    rows.set(cells['NAME'] ?? '', cells);
  }
  return { header: starts.map((s) => s.name), rows };
}

describe('kubectl get agd', () => {
  it('shows READY, STATUS, REVISION, LATEST, SUSPENDED and AGE', async () => {
    const { header, rows } = table(await kubectl(['get', 'agd']));
    expect(header).toEqual(['NAME', 'READY', 'STATUS', 'REVISION', 'LATEST', 'SUSPENDED', 'AGE']);
    expect(rows.get('rolling')).toEqual({
      NAME: 'rolling',
      READY: 'False',
      STATUS: 'RevisionInProgress',
      REVISION: 'a1a1a1a1',
      LATEST: 'BUILDING',
      SUSPENDED: 'false',
      AGE: expect.stringMatching(/^\d+s$/) as unknown as string,
    });
    // Not reconciled yet: no status, so only the spec's suspend and the age are known.
    expect(rows.get('held')).toMatchObject({
      READY: '',
      STATUS: '',
      REVISION: '',
      LATEST: '',
      SUSPENDED: 'true',
    });
  });

  it('stays under 100 characters wide, with a 21-character name and long values', async () => {
    // About 80 characters go to the other columns at their widest (a Ready reason of 20, AWAITING_DEPLOY).
    const name = 'support-agent-eu-west';
    await kubectl(['apply', '-f', '-'], dump(agent(name, false)));
    const inProgress = {
      status: {
        activeRevisionId: 'c3c3c3c3-0000-4000-8000-000000000003',
        activeRevision: {
          shortId: 'c3c3c3c3',
          image: `registry.example.com/${name}:1.0.0`,
          imageVersion: '1.0.0',
        },
        latestRevisionStatus: 'AWAITING_DEPLOY',
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'RevisionInProgress',
            message: 'Revision d4d4d4d4 is AWAITING_DEPLOY',
            lastTransitionTime: NOW,
          },
        ],
      },
    };
    await kubectl([
      'patch',
      'agd',
      name,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(inProgress),
    ]);
    const text = await kubectl(['get', 'agd']);
    const widest = Math.max(
      ...text
        .trimEnd()
        .split('\n')
        .map((line) => line.length),
    );
    expect(widest).toBeLessThan(100);
    expect(table(text).rows.get(name)).toMatchObject({ REVISION: 'c3c3c3c3', LATEST: 'AWAITING_DEPLOY' });
    await kubectl(['delete', 'agd', name]);
  });

  it('-o wide adds the source, deployment id, connection, URL and the Ready message', async () => {
    const { header, rows } = table(await kubectl(['get', 'agd', '-o', 'wide']));
    expect(header).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'REVISION',
      'LATEST',
      'SUSPENDED',
      'AGE',
      'SOURCE',
      'COMMIT',
      'IMAGE',
      'DEPLOYMENT',
      'CONNECTION',
      'URL',
      'MESSAGE',
    ]);
    expect(rows.get('rolling')).toMatchObject({
      COMMIT: '',
      IMAGE: '1.0.0',
      SOURCE: 'external_container',
      DEPLOYMENT: '0f6e5a7c-1111-4222-8333-944445555666',
      CONNECTION: 'eu',
      URL: 'https://rolling.agents.example.com',
      MESSAGE: 'revision b2b2b2b2 is BUILDING',
    });
  });
});

describe('kubectl describe agd', () => {
  it('names each Secret used, as written, with the resourceVersion the latest revision was made with', async () => {
    const text = await kubectl(['describe', 'agd', 'rolling']);
    const section = text.slice(text.indexOf('Secret Versions:'));
    expect(section).toMatch(/Name:\s+agent-secrets\s+Resource Version:\s+4711/);
    expect(section).toMatch(/Name:\s+registry-credentials\s+Resource Version:\s+12/);
  });
});

describe('kubectl apply', () => {
  it('rejects an external_container object without imageUri, naming the field', async () => {
    const object = agent('no-image', false) as { spec: { sourceRevisionConfig?: object } };
    delete object.spec.sourceRevisionConfig;
    const result = await kube.kubectl(['apply', '-f', '-'], dump(object));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('The AgentDeployment "no-image" is invalid');
    expect(result.stderr).toContain(
      'spec.sourceRevisionConfig.imageUri is required when spec.source is external_container',
    );
    expect((await kube.kubectl(['get', 'agd', 'no-image'])).code).not.toBe(0);
  });
});
