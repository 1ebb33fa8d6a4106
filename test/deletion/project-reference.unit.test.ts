// Which session a TraceDeletion naming an AgentDeployment deletes from, with fake ports: the
// reference resolves in its own namespace, waits for a project, and refuses an id the platform
// does not confirm by name, a malformed id, a name another object claims, and another connection.
import { describe, expect, it } from 'vitest';
import type { TraceDeletionObject } from '../../src/api/deletion/index.js';
import type { AgentDeploymentView } from '../../src/reconcilers/agentdeployment/object.js';
import {
  sessionTarget,
  type ProjectReferencePorts,
} from '../../src/reconcilers/tracedeletion/project-reference.js';

const PROJECT = '0b7e4c3a-6a5e-4f0e-9a51-2f1c9d7e8a10';
const signal = new AbortController().signal;

function deletion(spec: Partial<TraceDeletionObject['spec']> = {}): TraceDeletionObject {
  return {
    metadata: { name: 'erase', namespace: 'team-a' },
    spec: { agentDeploymentRef: { name: 'bot' }, traceIds: [PROJECT], ...spec },
  };
}

function ports(
  agent: Partial<AgentDeploymentView> | undefined,
  options: { sessionName?: string; claims?: number; seen?: TraceDeletionObject[] } = {},
): ProjectReferencePorts {
  return {
    agentDeployment: (namespace, name) =>
      agent === undefined || namespace !== 'team-a' || name !== 'bot'
        ? undefined
        : { metadata: { name: 'bot', namespace: 'team-a' }, spec: {}, ...agent },
    claimsOf: () => options.claims ?? 1,
    sessionsFor: (object) => {
      options.seen?.push(object);
      return {
        ok: true,
        label: 'default',
        client: {
          findSessionByName: () => Promise.resolve({ ok: true, value: undefined }),
          msUntilSessionLookupSpare: () => 0,
          readSession: (id) =>
            Promise.resolve({
              ok: true,
              value: options.sessionName === undefined ? undefined : { id, name: options.sessionName },
            }),
        },
      };
    },
  };
}

const recorded = { status: { tracingProject: { name: 'bot', id: PROJECT } } };

describe('sessionTarget', () => {
  it('passes a sessionId through untouched', async () => {
    const object = deletion({ agentDeploymentRef: undefined, sessionId: PROJECT });
    expect(await sessionTarget(object, undefined, signal)).toEqual({
      kind: 'resolved',
      sessionId: PROJECT,
      object,
    });
  });

  it('resolves to the project the platform confirms by the deployment name, on the object’s connection', async () => {
    const seen: TraceDeletionObject[] = [];
    const connectionRef = { kind: 'PlatformConnection' as const, name: 'eu' };
    const target = await sessionTarget(
      deletion(),
      ports(
        { ...recorded, spec: { connectionRef } as AgentDeploymentView['spec'] },
        { sessionName: 'bot', seen },
      ),
      signal,
    );
    expect(target).toMatchObject({ kind: 'resolved', sessionId: PROJECT });
    expect(seen[0]?.spec.connectionRef).toEqual(connectionRef);
  });

  it('waits for a missing AgentDeployment or project', async () => {
    expect(await sessionTarget(deletion(), ports(undefined), signal)).toMatchObject({
      kind: 'blocked',
      reason: 'AgentDeploymentNotFound',
    });
    expect(await sessionTarget(deletion(), ports({}), signal)).toMatchObject({
      kind: 'blocked',
      reason: 'TracingProjectUnknown',
    });
  });

  it('refuses an id the platform does not hold under the deployment’s name, or one that is no uuid', async () => {
    for (const sessionName of [undefined, 'other-team-bot']) {
      expect(await sessionTarget(deletion(), ports(recorded, { sessionName }), signal)).toMatchObject({
        kind: 'refused',
        reason: 'TracingProjectMismatch',
      });
    }
    const malformed = { status: { tracingProject: { name: 'bot', id: '../../x' } } };
    expect(await sessionTarget(deletion(), ports(malformed, { sessionName: 'bot' }), signal)).toMatchObject({
      kind: 'refused',
      reason: 'TracingProjectMismatch',
    });
  });

  it('refuses a deployment name another AgentDeployment claims, and another connection than the object’s', async () => {
    expect(
      await sessionTarget(deletion(), ports(recorded, { sessionName: 'bot', claims: 2 }), signal),
    ).toMatchObject({
      kind: 'refused',
      reason: 'TracingProjectAmbiguous',
    });
    const other = deletion({ connectionRef: { kind: 'ClusterPlatformConnection', name: 'shared' } });
    expect(await sessionTarget(other, ports(recorded, { sessionName: 'bot' }), signal)).toMatchObject({
      kind: 'refused',
      reason: 'ConnectionMismatch',
    });
  });
});
