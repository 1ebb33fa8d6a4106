// Revisions over their life, end to end against both emulators: a push to a deployment that
// builds on push shows in status within seconds (not at the next resync); a failing revision
// with spec.rollback.onFailure returns to the previous image, says so and stops; without the
// policy nothing changes; the rollback-to annotation rolls back to a revision of the history.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { runHealthScript } from '../packaging/support/lua.js';
import { ARGOCD_HEALTH_DIR } from '../packaging/support/paths.js';
import {
  NAMESPACE,
  Stack,
  condition,
  containerAgent,
  isReady,
  type AgentDeploymentObject,
} from './harness.js';

interface RevisionStatusView {
  revisionHistory?: Array<{ id: string; status: string; image?: string; commit?: string; repoRef?: string }>;
  activeRevision?: { shortId: string; commit?: string; image?: string };
  latestRevision?: { shortId: string; commit?: string };
  rollback?: { revisionId: string; failedRevisionId?: string; reason: string };
}
const revisions = (object: AgentDeploymentObject): RevisionStatusView =>
  (object.status ?? {}) as RevisionStatusView;

let stack: Stack;
let listenerId: string;

afterEach(async () => {
  await stack.close();
});

function repoAgent(name: string, integrationId: string): AgentDeploymentObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      source: 'repo_host',
      sourceConfig: {
        integrationId,
        repoUrl: 'https://github.com/example/agent',
        deploymentType: 'dev',
        buildOnPush: true,
      },
      sourceRevisionConfig: { repoRef: 'main', graphConfigPath: 'langgraph.json' },
    },
  };
}

describe('build on push', () => {
  beforeEach(async () => {
    // Resync once a minute: anything seen sooner came from the push cadence.
    stack = await Stack.start({ reconciler: { pushPollMs: 1_000 } });
  });

  it('a pushed revision shows in status, with its commit and a NewRevision event, within seconds', async () => {
    const { body } = await stack.api<Array<{ id: string }>>('GET', '/v1/integrations/repo_host/install');
    const integrationId = body[0]?.id ?? '';
    await stack.apply(repoAgent('pushed', integrationId));
    const ready = await stack.waitFor('pushed', isReady, 'Ready');
    const deploymentId = ready.status?.deploymentId ?? '';
    // Settled: two more list calls (a leftover in-flight poll, then the push cadence's own),
    // so that what sees the push is the cadence of a settled deployment, not a rollout's poll.
    const lists = async (): Promise<number> => {
      const stats = await stack.admin<{ byRoute: Array<{ method: string; route: string; count: number }> }>(
        'GET',
        '/stats',
      );
      return stats.byRoute
        .filter((row) => row.method === 'GET' && row.route === '/v2/deployments')
        .reduce((sum, row) => sum + row.count, 0);
    };
    const settledFrom = await lists();
    await stack.waitUntil(
      async () => (await lists()) >= settledFrom + 2,
      'two list calls of the settled deployment',
      5_000,
    );
    const sha = 'c0ffee'.padEnd(40, '1');
    const pushedAt = Date.now();
    const pushed = await stack.admin<{ id: string }>('POST', `/deployments/${deploymentId}/push`, {
      repo_commit_sha: sha,
    });
    const seen = await stack.waitFor(
      'pushed',
      (o) => o.status?.latestRevisionId === pushed.id,
      'showing the pushed revision',
      5_000,
    );
    // The push cadence (1 s here) plus a quarter of it; the resync (60 s) plays no part.
    expect(Date.now() - pushedAt).toBeLessThan(4_000);
    expect(revisions(seen).revisionHistory?.[0]).toMatchObject({
      id: pushed.id,
      commit: sha,
      repoRef: 'main',
    });
    const deployed = await stack.waitFor(
      'pushed',
      (o) => isReady(o) && o.status?.activeRevisionId === pushed.id,
      'Ready on the pushed revision',
    );
    expect(revisions(deployed).activeRevision).toMatchObject({ shortId: pushed.id.slice(0, 8), commit: sha });
    const events = await stack.eventsOnce(
      'pushed',
      (seen) =>
        seen.some((event) => event.reason === 'NewRevision' && event.note?.includes(sha.slice(0, 12))),
      'the pushed NewRevision',
    );
    expect(events.find((event) => event.reason === 'NewRevision')?.note).toContain(
      `commit ${sha.slice(0, 12)} of main`,
    );
    expect(events.filter((event) => event.reason === 'Deployed').length).toBe(2);
  });
});

describe('rollback', () => {
  beforeEach(async () => {
    // A resync every second: "it stops" is checked over passes that look again.
    stack = await Stack.start({ operator: { resyncPeriodMs: 1_000 } });
    listenerId = await stack.listenerId();
  });

  async function failSecondImage(
    name: string,
    extra: Record<string, unknown>,
  ): Promise<string | null | undefined> {
    await stack.apply(containerAgent(name, listenerId, extra));
    const first = await stack.waitFor(name, isReady, 'Ready on the first image');
    await stack.admin('POST', '/revision-failures', { deployment_name: name, status: 'DEPLOY_FAILED' });
    await stack.patchSpec(name, { sourceRevisionConfig: { imageUri: 'registry.example/agent:broken' } });
    return first.status?.activeRevisionId;
  }

  it('with spec.rollback.onFailure, a failed revision returns to the previous image, says so, and stops', async () => {
    const good = await failSecondImage('back', { rollback: { onFailure: true } });
    // The intent ("Rolling back to ...") is recorded before the PATCH is sent; the rollback is
    // done once the earlier image is deployed again ("Rolled back to ...").
    const rolledBack = await stack.waitFor(
      'back',
      (o) =>
        condition(o, 'Ready')?.reason === 'RolledBack' &&
        (condition(o, 'Ready')?.message ?? '').startsWith('Rolled back to'),
      'RolledBack, the earlier image deployed again',
    );
    const [deployment] = await stack.deployments();
    expect(deployment?.source_revision_config.image_uri).toBe('registry.example/agent:1');
    expect(rolledBack.status?.activeRevisionId).toBe(deployment?.active_revision_id);
    expect(condition(rolledBack, 'Stalled')).toMatchObject({ status: 'True', reason: 'RolledBack' });
    // Argo CD shows it Degraded (Flux's kstatus reads Stalled=True as failed): Git asks for another image.
    expect((await runHealthScript(join(ARGOCD_HEALTH_DIR, 'health.lua'), rolledBack)).status).toBe(
      'Degraded',
    );
    expect(revisions(rolledBack).rollback).toMatchObject({ revisionId: good });
    expect(revisions(rolledBack).rollback?.reason).toMatch(/ended DEPLOY_FAILED$/);
    const [rolledBackEvent] = await stack.eventsWithReason('back', 'RolledBack');
    expect(rolledBackEvent?.note).toContain('image registry.example/agent:1');
    // It stops: looked at again, the failed spec is not sent, no new revision is made.
    const latest = deployment?.latest_revision_id;
    await stack.waitForReconciles(2, 'back, rolled back');
    expect((await stack.deployments())[0]?.latest_revision_id).toBe(latest);
    expect((await stack.deployments())[0]?.source_revision_config.image_uri).toBe('registry.example/agent:1');
  });

  it('without the policy nothing changes: the failed revision stays, RevisionFailed', async () => {
    await failSecondImage('stay', {});
    const stalled = await stack.waitFor('stay', (o) => condition(o, 'Stalled')?.status === 'True', 'Stalled');
    expect(condition(stalled, 'Ready')?.reason).toBe('RevisionFailed');
    const latest = (await stack.deployments())[0]?.latest_revision_id;
    await stack.waitForReconciles(2, 'stay, stalled');
    const [deployment] = await stack.deployments();
    expect(deployment?.latest_revision_id).toBe(latest);
    expect(deployment?.source_revision_config.image_uri).toBe('registry.example/agent:broken');
    expect((await stack.events('stay')).map((event) => event.reason)).not.toContain('RolledBack');
  });

  it('the rollback-to annotation rolls back to a revision of the history, and refuses one that is not', async () => {
    await stack.apply(containerAgent('manual', listenerId));
    const first = await stack.waitFor('manual', isReady, 'Ready');
    await stack.patchSpec('manual', { sourceRevisionConfig: { imageUri: 'registry.example/agent:2' } });
    await stack.waitFor(
      'manual',
      (o) => isReady(o) && o.status?.activeRevisionId !== first.status?.activeRevisionId,
      'Ready on :2',
    );
    const annotate = (value: string) =>
      stack.client.mergePatch(AGENT_DEPLOYMENTS, NAMESPACE, 'manual', {
        metadata: { annotations: { 'agentplatform.io/rollback-to': value } },
      });
    await annotate('deadbeef');
    await stack.eventsWithReason('manual', 'RollbackRefused');
    await annotate(first.status?.activeRevisionId?.slice(0, 8) ?? '');
    const back = await stack.waitFor(
      'manual',
      (o) => condition(o, 'Ready')?.reason === 'RolledBack',
      'RolledBack',
    );
    expect((await stack.deployments())[0]?.source_revision_config.image_uri).toBe('registry.example/agent:1');
    expect(revisions(back).rollback?.reason).toBe('asked by the agentplatform.io/rollback-to annotation');
  });
});
