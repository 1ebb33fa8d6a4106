// Revision states move one per phase on the emulator's clock; DEPLOYED becomes active;
// a newer revision makes an unfinished older one SKIPPED; injected failures end in the
// chosen state; deployment status goes AWAITING_DATABASE -> READY, and DELETE goes
// AWAITING_DELETE -> 404 with the name free again.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { revisionStateAt } from '../../src/sim/controlplane/revision-lifecycle.js';
import {
  ManualClock,
  containerBody,
  repoHostBody,
  startEmulator,
  uniqueName,
  type EmulatorClient,
  type WireDeployment,
  type WireRevision,
} from './helpers.js';

const PHASE = 1000;
const clock = new ManualClock();
let client: EmulatorClient;
let listenerId: string;
let integrationId: string;

beforeAll(async () => {
  client = await startEmulator({ revisionPhaseMs: PHASE, clock: clock.now });
  ({ listenerId, integrationId } = await client.defaults());
});

beforeEach(async () => {
  await client.call('POST', '/_emulator/reset');
  ({ listenerId, integrationId } = await client.defaults());
});

async function deployment(id: string): Promise<WireDeployment> {
  return (await client.call<WireDeployment>('GET', `/v2/deployments/${id}`)).body;
}
async function revision(d: { id: string }, revisionId: string | null): Promise<WireRevision> {
  return (await client.call<WireRevision>('GET', `/v2/deployments/${d.id}/revisions/${revisionId ?? ''}`))
    .body;
}

async function statusesOverTime(d: WireDeployment, phases: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i <= phases; i++) {
    seen.push((await revision(d, d.latest_revision_id)).status);
    clock.advance(PHASE);
  }
  return seen;
}

describe('revision states', () => {
  it('repo_host walks every build state to DEPLOYED, one per phase', async () => {
    const created = (
      await client.call<WireDeployment>('POST', '/v2/deployments', { body: repoHostBody(integrationId) })
    ).body;
    expect(created.status).toBe('AWAITING_DATABASE');
    expect(created.active_revision_id).toBeNull();
    expect(await statusesOverTime(created, 7)).toEqual([
      'CREATING',
      'QUEUED',
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
      'DEPLOYED',
    ]);
    const after = await deployment(created.id);
    expect(after.status).toBe('READY');
    expect(after.active_revision_id).toBe(created.latest_revision_id);
  });

  it('container images skip the build states', async () => {
    const created = (
      await client.call<WireDeployment>('POST', '/v2/deployments', { body: containerBody(listenerId) })
    ).body;
    expect(await statusesOverTime(created, 4)).toEqual([
      'CREATING',
      'QUEUED',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
  });

  it('updated_at follows the state transitions', async () => {
    const created = (
      await client.call<WireDeployment>('POST', '/v2/deployments', { body: containerBody(listenerId) })
    ).body;
    clock.advance(PHASE * 2 + 10);
    const r = await revision(created, created.latest_revision_id);
    expect(Date.parse(r.updated_at) - Date.parse(r.created_at)).toBe(PHASE * 2);
  });

  it('a newer revision makes an unfinished older one SKIPPED; the active one stays until the newer deploys', async () => {
    const created = (
      await client.call<WireDeployment>('POST', '/v2/deployments', { body: containerBody(listenerId) })
    ).body;
    clock.advance(PHASE * 4);
    const first = created.latest_revision_id;
    const second = (
      await client.call<WireDeployment>('PATCH', `/v2/deployments/${created.id}`, {
        body: { source_revision_config: { image_uri: 'i:2' } },
      })
    ).body;
    clock.advance(PHASE);
    const third = (
      await client.call<WireDeployment>('PATCH', `/v2/deployments/${created.id}`, {
        body: { source_revision_config: { image_uri: 'i:3' } },
      })
    ).body;
    expect((await revision(created, first)).status).toBe('DEPLOYED');
    expect((await revision(created, second.latest_revision_id)).status).toBe('SKIPPED');
    expect((await deployment(created.id)).active_revision_id).toBe(first);
    clock.advance(PHASE * 4);
    expect((await revision(created, third.latest_revision_id)).status).toBe('DEPLOYED');
    expect((await revision(created, first)).status).toBe('DEPLOYED');
    expect((await deployment(created.id)).active_revision_id).toBe(third.latest_revision_id);
  });
});

describe('injected revision failures', () => {
  it.each([
    { status: 'CREATE_FAILED', source: 'repo_host', before: ['CREATING'] },
    {
      status: 'BUILD_FAILED',
      source: 'repo_host',
      before: ['CREATING', 'QUEUED', 'AWAITING_BUILD', 'BUILDING'],
    },
    {
      status: 'DEPLOY_FAILED',
      source: 'external_container',
      before: ['CREATING', 'QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING'],
    },
    { status: 'BUILD_FAILED', source: 'external_container', before: ['CREATING', 'QUEUED'] },
  ] as const)('$status on $source fails after $before', async ({ status, source, before }) => {
    const name = uniqueName('failing');
    const injected = await client.call('POST', '/_emulator/revision-failures', {
      body: { deployment_name: name, status },
    });
    expect(injected.status).toBe(201);
    const body =
      source === 'repo_host' ? repoHostBody(integrationId, { name }) : containerBody(listenerId, { name });
    const created = (await client.call<WireDeployment>('POST', '/v2/deployments', { body })).body;
    expect(await statusesOverTime(created, before.length)).toEqual([...before, status]);
    expect((await deployment(created.id)).active_revision_id).toBeNull();
  });

  it('applies to the next `count` revisions only, and to any deployment when unnamed', async () => {
    await client.call('POST', '/_emulator/revision-failures', {
      body: { status: 'DEPLOY_FAILED', count: 2 },
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await client.call<WireDeployment>('POST', '/v2/deployments', { body: containerBody(listenerId) }))
          .body.id,
      );
    }
    clock.advance(PHASE * 10);
    const statuses = await Promise.all(
      ids.map(async (id) => (await revision({ id }, (await deployment(id)).latest_revision_id)).status),
    );
    expect(statuses).toEqual(['DEPLOY_FAILED', 'DEPLOY_FAILED', 'DEPLOYED']);
  });

  it('rejects an unknown failure state with 422', async () => {
    expect(
      (await client.call('POST', '/_emulator/revision-failures', { body: { status: 'SKIPPED' } })).status,
    ).toBe(422);
  });
});

describe('push builds', () => {
  it('makes a revision with the given sha when build_on_push is on, 409 otherwise', async () => {
    const onPush = (
      await client.call<WireDeployment>('POST', '/v2/deployments', {
        body: repoHostBody(integrationId, {
          source_config: {
            integration_id: integrationId,
            repo_url: 'https://git.example/a',
            build_on_push: true,
          },
        }),
      })
    ).body;
    const sha = 'a'.repeat(40);
    const pushed = await client.call<WireRevision>('POST', `/_emulator/deployments/${onPush.id}/push`, {
      body: { repo_commit_sha: sha },
    });
    expect(pushed.status).toBe(201);
    expect(pushed.body.source_revision_config.repo_commit_sha).toBe(sha);
    const after = await deployment(onPush.id);
    expect(after.latest_revision_id).toBe(pushed.body.id);
    expect(after.source_revision_config.repo_commit_sha).toBe(sha);

    const off = (
      await client.call<WireDeployment>('POST', '/v2/deployments', { body: repoHostBody(integrationId) })
    ).body;
    expect((await client.call('POST', `/_emulator/deployments/${off.id}/push`)).status).toBe(409);
    expect(
      (await client.call('POST', `/_emulator/deployments/${'0'.repeat(8)}-0000-4000-8000-000000000000/push`))
        .status,
    ).toBe(404);
  });
});

describe('deployment status and delete', () => {
  it('AWAITING_DATABASE for one phase, then READY', async () => {
    const created = (
      await client.call<WireDeployment>('POST', '/v2/deployments', { body: containerBody(listenerId) })
    ).body;
    expect(created.status).toBe('AWAITING_DATABASE');
    clock.advance(PHASE - 1);
    expect((await deployment(created.id)).status).toBe('AWAITING_DATABASE');
    clock.advance(1);
    expect((await deployment(created.id)).status).toBe('READY');
  });

  it('DELETE is 204, AWAITING_DELETE for one phase, then 404 and the name is free', async () => {
    const name = uniqueName('doomed');
    const created = (
      await client.call<WireDeployment>('POST', '/v2/deployments', {
        body: containerBody(listenerId, { name }),
      })
    ).body;
    expect((await client.call('DELETE', `/v2/deployments/${created.id}`)).status).toBe(204);
    expect((await deployment(created.id)).status).toBe('AWAITING_DELETE');
    expect((await client.call('DELETE', `/v2/deployments/${created.id}`)).status).toBe(204);
    expect((await client.call('PATCH', `/v2/deployments/${created.id}`, { body: {} })).status).toBe(400);
    expect(
      (await client.call('POST', '/v2/deployments', { body: containerBody(listenerId, { name }) })).status,
    ).toBe(400);
    clock.advance(PHASE);
    const gone = await client.call('GET', `/v2/deployments/${created.id}`);
    expect(gone).toMatchObject({ status: 404, body: { detail: `Deployment ID ${created.id} not found.` } });
    expect((await client.call('DELETE', `/v2/deployments/${created.id}`)).status).toBe(404);
    expect(
      (await client.call('POST', '/v2/deployments', { body: containerBody(listenerId, { name }) })).status,
    ).toBe(201);
  });

  it('keeps the tracing project unless delete_tracing_project=true', async () => {
    const kept = (
      await client.call<WireDeployment>('POST', '/v2/deployments', { body: containerBody(listenerId) })
    ).body;
    const dropped = (
      await client.call<WireDeployment>('POST', '/v2/deployments', { body: containerBody(listenerId) })
    ).body;
    await client.call('DELETE', `/v2/deployments/${kept.id}?delete_tracing_project=false`);
    await client.call('DELETE', `/v2/deployments/${dropped.id}?delete_tracing_project=true`);
    const projects = (await client.call<{ name: string }[]>('GET', '/_emulator/tracing-projects')).body.map(
      (p) => p.name,
    );
    expect(projects).toContain(kept.name);
    expect(projects).not.toContain(dropped.name);
    expect(
      (await client.call('DELETE', `/v2/deployments/${kept.id}?delete_tracing_project=maybe`)).status,
    ).toBe(422);
  });
});

describe('revisionStateAt (pure)', () => {
  const base = { source: 'repo_host' as const, createdAt: 0, supersededAt: null, failure: null };
  it('is DEPLOYED at once with phase 0', () => {
    expect(revisionStateAt(base, 0, 0)).toEqual({ status: 'DEPLOYED', since: 0 });
  });
  it('a revision superseded after it finished keeps its final state', () => {
    expect(revisionStateAt({ ...base, supersededAt: 7000 }, 1000, 9000).status).toBe('DEPLOYED');
    expect(revisionStateAt({ ...base, supersededAt: 5999 }, 1000, 9000)).toEqual({
      status: 'SKIPPED',
      since: 5999,
    });
  });
});

describe('image_version', () => {
  type WithImageVersion = WireDeployment & { image_version: string | null };
  const imageVersion = async (id: string): Promise<string | null> =>
    (await client.call<WithImageVersion>('GET', `/v2/deployments/${id}`)).body.image_version;

  it('is the version of the image the active revision runs: null until one deploys, then its tag', async () => {
    const created = (
      await client.call<WithImageVersion>('POST', '/v2/deployments', {
        body: containerBody(listenerId, { source_revision_config: { image_uri: 'registry.example:5000/team/agent:1.4.2' } }),
      })
    ).body;
    expect(created.image_version).toBeNull();
    clock.advance(PHASE * 4);
    expect(await imageVersion(created.id)).toBe('1.4.2');
    await client.call('PATCH', `/v2/deployments/${created.id}`, {
      body: { source_revision_config: { image_uri: 'registry.example:5000/team/agent:1.5.0' } },
    });
    // The new revision is not deployed yet: the deployment still runs the old image.
    expect(await imageVersion(created.id)).toBe('1.4.2');
    clock.advance(PHASE * 4);
    expect(await imageVersion(created.id)).toBe('1.5.0');
  });

  it.each([
    { image: 'registry.example/agent@sha256:' + 'a'.repeat(64), version: 'sha256:' + 'a'.repeat(64) },
    { image: 'registry.example:5000/agent', version: 'latest' },
    { image: 'agent:2@sha256:' + 'b'.repeat(64), version: 'sha256:' + 'b'.repeat(64) },
  ])('reads $image as $version', async ({ image, version }) => {
    const created = (
      await client.call<WithImageVersion>('POST', '/v2/deployments', {
        body: containerBody(listenerId, { source_revision_config: { image_uri: image } }),
      })
    ).body;
    clock.advance(PHASE * 4);
    expect(await imageVersion(created.id)).toBe(version);
  });

  it('stays null for a repository source, whose built image the spec does not name', async () => {
    const created = (
      await client.call<WithImageVersion>('POST', '/v2/deployments', { body: repoHostBody(integrationId) })
    ).body;
    clock.advance(PHASE * 10);
    const after = (await client.call<WithImageVersion>('GET', `/v2/deployments/${created.id}`)).body;
    expect(after.active_revision_id).not.toBeNull();
    expect(after.image_version).toBeNull();
  });
});
