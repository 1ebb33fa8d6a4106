// When the tracing-project controller looks a project up: once the owned deployment exists,
// again only while the recorded project is missing or names another deployment name, never
// for an object that does not own its deployment or is being deleted.
import { describe, expect, it } from 'vitest';
import { decideTracingProject } from '../../src/reconcilers/tracingproject/decide.js';
import type { AgentDeploymentView } from '../../src/reconcilers/agentdeployment/object.js';

const ID = '6f1c2a4e-0000-4000-8000-000000000001';
const UID = 'uid-1';

function object(
  status: AgentDeploymentView['status'],
  extra: Partial<AgentDeploymentView> = {},
): AgentDeploymentView {
  return { metadata: { name: 'bot', namespace: 'team-a', uid: UID }, spec: {}, status, ...extra };
}

const owned = { ownership: { uid: UID, deploymentId: ID }, deploymentId: ID };

describe('decideTracingProject', () => {
  it('looks up the project of an owned deployment by the deployment name', () => {
    expect(decideTracingProject(object(owned))).toEqual({ kind: 'lookup', name: 'bot' });
    const named = object(owned, { spec: { name: 'support-bot' } });
    expect(decideTracingProject(named)).toEqual({ kind: 'lookup', name: 'support-bot' });
  });

  it('does nothing once the project of that name is recorded', () => {
    expect(decideTracingProject(object({ ...owned, tracingProject: { name: 'bot', id: ID } }))).toEqual({
      kind: 'none',
    });
  });

  it('looks again when the recorded project names another deployment name', () => {
    const stale = object({ ...owned, tracingProject: { name: 'old', id: ID } });
    expect(decideTracingProject(stale)).toEqual({ kind: 'lookup', name: 'bot' });
  });

  it('leaves alone an object that owns nothing, whose record is another uid’s, or that is being deleted', () => {
    expect(decideTracingProject(object({ deploymentId: ID }))).toEqual({ kind: 'none' });
    expect(decideTracingProject(object({ ...owned, ownership: { uid: 'other', deploymentId: ID } }))).toEqual(
      {
        kind: 'none',
      },
    );
    const deleting = object(owned);
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(decideTracingProject(deleting)).toEqual({ kind: 'none' });
  });
});
