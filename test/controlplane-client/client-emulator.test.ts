// The client against the control-plane emulator: every operation, typed results, and the
// error kinds the operator switches on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import type { DeploymentCreateRequest } from '../../src/controlplane/models/index.js';
import { startControlPlaneEmulator, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';
import { emulatorAdmin } from './support/emulator.js';

const API_KEY = 'sk-integration-key-0001';
let emulator: ControlPlaneEmulator;
let client: ControlPlaneClient;

async function createRequest(name: string): Promise<DeploymentCreateRequest> {
  const integrations = await client.listIntegrations();
  if (!integrations.ok) throw new Error(integrations.error.message);
  return {
    name,
    source: 'repo_host',
    source_config: {
      integration_id: integrations.value[0]?.id,
      repo_url: 'https://github.com/acme/agent',
      deployment_type: 'dev',
    },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    secrets: [{ name: 'OPENAI_API_KEY', value: 'secret-value-123' }],
  };
}

beforeAll(async () => {
  emulator = await startControlPlaneEmulator({
    apiKeys: [{ key: API_KEY }],
    revisionPhaseMs: 0,
    rateLimit: 'off',
  });
  client = new ControlPlaneClient({ baseUrl: emulator.url, credentials: { apiKey: API_KEY } });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});
beforeEach(async () => {
  await emulatorAdmin.reset(emulator);
});

describe('control-plane client against the emulator', () => {
  it('creates, reads, lists, patches and deletes a deployment, and follows its revisions', async () => {
    const created = await client.createDeployment(await createRequest('agent-one'));
    if (!created.ok) throw new Error(created.error.message);
    const deployment = created.value;
    expect(deployment.name).toBe('agent-one');
    expect(deployment.latest_revision_id).not.toBeNull();

    const fetched = await client.getDeployment(deployment.id);
    expect(fetched.ok && fetched.value.id).toBe(deployment.id);

    const listed = await client.listDeployments({ nameContains: 'one', limit: 10 });
    expect(listed.ok && listed.value.resources.map((d) => d.id)).toEqual([deployment.id]);
    const byId = await client.listDeployments({ deploymentIds: [deployment.id] });
    expect(byId.ok && byId.value.resources).toHaveLength(1);

    const patched = await client.patchDeployment(deployment.id, {
      source_revision_config: { repo_ref: 'release' },
    });
    if (!patched.ok) throw new Error(patched.error.message);
    expect(patched.value.latest_revision_id).not.toBe(deployment.latest_revision_id);

    const revisions = await client.listRevisions(deployment.id, { limit: 10 });
    expect(revisions.ok && revisions.value.resources).toHaveLength(2);
    const revision = await client.getRevision(deployment.id, patched.value.latest_revision_id ?? '');
    expect(revision.ok && revision.value.source_revision_config.repo_ref).toBe('release');

    const deleted = await client.deleteDeployment(deployment.id, { deleteTracingProject: true });
    expect(deleted).toEqual({ ok: true, value: undefined });
  });

  it('lists listeners and integrations', async () => {
    const listeners = await client.listListeners({ limit: 5 });
    expect(listeners.ok && listeners.value.resources.length).toBeGreaterThan(0);
    const integrations = await client.listIntegrations();
    expect(integrations.ok && integrations.value.length).toBeGreaterThan(0);
  });

  it('returns NotFound for an unknown deployment and Conflict-free Terminal errors with the validation entries', async () => {
    const missing = await client.getDeployment('0b9e7c1e-8f4a-4a57-9d55-6f0f6f1f2a3b');
    expect(missing.ok === false && missing.error).toMatchObject({ kind: 'NotFound', status: 404 });

    const request = await createRequest('agent-tag');
    request.source_config.build_on_push = true;
    request.source_revision_config.repo_ref = 'refs/tags/v1';
    const rejected = await client.createDeployment(request);
    expect(rejected.ok === false && rejected.error.kind).toBe('Terminal');
    expect(
      rejected.ok === false && rejected.error.kind === 'Terminal' && rejected.error.status,
    ).toBeGreaterThanOrEqual(400);
  });

  it('rejects bad input before sending, naming the field and the rule', async () => {
    const before = (await emulatorAdmin.stats(emulator)).total;
    const result = await client.listDeployments({ limit: 500 });
    expect(result.ok === false && result.error).toMatchObject({ kind: 'Terminal', status: 0, attempts: 0 });
    expect(result.ok === false && result.error.message).toMatch(
      /query\.limit: must be an integer from 1 to 100/,
    );
    const blank = await client.getDeployment('');
    expect(blank.ok === false && blank.error.message).toMatch(
      /path\.deployment_id: must be a non-empty string/,
    );
    expect((await emulatorAdmin.stats(emulator)).total).toBe(before);
  });

  it('answers Terminal 401 for a wrong key', async () => {
    const stranger = new ControlPlaneClient({
      baseUrl: emulator.url,
      credentials: { apiKey: 'sk-wrong-key-xyz' },
    });
    const result = await stranger.listListeners();
    await stranger.close();
    expect(result.ok === false && result.error).toMatchObject({ kind: 'Terminal', status: 401 });
  });

  it('refuses a bad configuration with the field and the rule', () => {
    expect(() => new ControlPlaneClient({ baseUrl: 'ftp://x', credentials: { apiKey: 'k' } })).toThrow(
      /baseUrl must use http or https/,
    );
    expect(() => new ControlPlaneClient({ credentials: { apiKey: '' } })).toThrow(
      /credentials.apiKey must be a non-empty string/,
    );
    expect(() => new ControlPlaneClient({ credentials: { apiKey: 'k', tenantId: 'nope' } })).toThrow(
      /credentials.tenantId must be a uuid/,
    );
    expect(() => new ControlPlaneClient({ credentials: { apiKey: 'k' }, retry: { maxAttempts: 0 } })).toThrow(
      /retry.maxAttempts/,
    );
  });

  it('uses the region presets for the host', () => {
    const eu = new ControlPlaneClient({ region: 'eu', credentials: { apiKey: 'k' } });
    expect(eu.endpoint).toEqual({
      origin: 'https://eu.api.host.langchain.com',
      pathPrefix: '',
      region: 'eu',
    });
    const prefixed = new ControlPlaneClient({
      baseUrl: 'http://127.0.0.1:9/cp/',
      credentials: { apiKey: 'k' },
    });
    expect(prefixed.endpoint.pathPrefix).toBe('/cp');
    void eu.close();
    void prefixed.close();
  });
});
