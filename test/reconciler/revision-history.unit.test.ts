// status.revisionHistory and the summaries: newest first, bounded, built from what passes
// see (no call), stable when nothing changes.
import { describe, expect, it } from 'vitest';
import { REVISION_HISTORY_LIMIT, type RevisionRecord } from '../../src/api/agentdeployment/index.js';
import type { Deployment } from '../../src/controlplane/models/index.js';
import { nextRevisionHistory, revisionSummaries } from '../../src/reconcilers/agentdeployment/history.js';

const T0 = Date.parse('2026-11-26T08:00:00Z');
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
const rev = (n: number): string => `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;

function deployment(
  latest: number,
  active: number | null,
  extra: Partial<Deployment['source_revision_config']> = {},
): Deployment {
  return {
    name: 'agent',
    source: 'external_container',
    source_config: {},
    source_revision_config: { image_uri: `registry.example.com/agent:${latest}`, ...extra },
    secrets: [],
    id: '11111111-1111-4111-8111-111111111111',
    tenant_id: '00000000-0000-4000-8000-000000000000',
    created_at: '2026-11-21T00:00:00Z',
    updated_at: '2026-11-21T00:00:00Z',
    status: 'READY',
    latest_revision_id: rev(latest),
    active_revision_id: active === null ? null : rev(active),
    image_version: active === null ? null : String(active),
  };
}

describe('revision history', () => {
  it('records a revision from in flight to deployed, with its image and times, once', () => {
    let history = nextRevisionHistory(undefined, {
      deployment: deployment(1, null),
      latestStatus: 'CREATING',
      now: at(0),
    });
    history = nextRevisionHistory(history, {
      deployment: deployment(1, null),
      latestStatus: 'DEPLOYING',
      now: at(5),
    });
    history = nextRevisionHistory(history, {
      deployment: deployment(1, 1),
      latestStatus: 'DEPLOYED',
      now: at(9),
    });
    const settled = nextRevisionHistory(history, {
      deployment: deployment(1, 1),
      latestStatus: 'DEPLOYED',
      now: at(60),
    });
    expect(settled).toEqual([
      {
        id: rev(1),
        status: 'DEPLOYED',
        image: 'registry.example.com/agent:1',
        createdAt: at(0).toISOString(),
        deployedAt: at(9).toISOString(),
      },
    ]);
    // A later pass that learns nothing new yields the same history (no status write).
    expect(settled).toEqual(history);
  });

  it('keeps the serving revision, the failed one and its reason, newest first', () => {
    let history = nextRevisionHistory(undefined, {
      deployment: deployment(1, 1),
      latestStatus: 'DEPLOYED',
      now: at(0),
    });
    history = nextRevisionHistory(history, {
      deployment: deployment(2, 1),
      latestStatus: 'BUILD_FAILED',
      now: at(30),
    });
    expect(history.map((entry) => [entry.id, entry.status, entry.failureReason])).toEqual([
      [rev(2), 'BUILD_FAILED', 'BUILD_FAILED'],
      [rev(1), 'DEPLOYED', undefined],
    ]);
    expect(revisionSummaries(history, deployment(2, 1))).toEqual({
      active: {
        shortId: rev(1).slice(0, 8),
        image: 'registry.example.com/agent:1',
        imageVersion: '1',
        createdAt: at(0).toISOString(),
        deployedAt: at(0).toISOString(),
      },
      latest: {
        shortId: rev(2).slice(0, 8),
        image: 'registry.example.com/agent:2',
        createdAt: at(30).toISOString(),
      },
    });
  });

  it('marks a revision superseded in flight SKIPPED and records smoke-test verdicts', () => {
    let history = nextRevisionHistory(undefined, {
      deployment: deployment(1, null),
      latestStatus: 'BUILDING',
      now: at(0),
    });
    history = nextRevisionHistory(history, {
      deployment: deployment(2, null),
      latestStatus: 'CREATING',
      now: at(3),
    });
    history = nextRevisionHistory(history, {
      deployment: deployment(2, 2),
      latestStatus: 'DEPLOYED',
      verdict: {
        revisionId: rev(2),
        specHash: 'h',
        result: 'Failed',
        message: 'the reply does not contain "pong"',
      },
      now: at(20),
    });
    expect(history.map((entry) => [entry.status, entry.smokeTest, entry.failureReason])).toEqual([
      ['DEPLOYED', 'Failed', 'smoke test failed: the reply does not contain "pong"'],
      ['SKIPPED', undefined, undefined],
    ]);
  });

  it('records the commit of a repository revision (a push)', () => {
    const pushed = deployment(2, 1, {
      image_uri: null,
      repo_ref: 'main',
      repo_commit_sha: 'c0ffee'.padEnd(40, '0'),
    });
    const history = nextRevisionHistory(undefined, { deployment: pushed, now: at(0) });
    expect(history[0]).toMatchObject({
      id: rev(2),
      repoRef: 'main',
      commit: 'c0ffee'.padEnd(40, '0'),
      status: 'UNKNOWN',
    });
    expect(history[1]).toMatchObject({ id: rev(1), status: 'DEPLOYED' });
  });

  it(`stays bounded at ${REVISION_HISTORY_LIMIT} entries over 100 revisions, keeping the newest`, () => {
    let history: RevisionRecord[] | undefined;
    for (let n = 1; n <= 100; n += 1) {
      history = nextRevisionHistory(history, {
        deployment: deployment(n, n - 1 || null),
        latestStatus: 'DEPLOYING',
        now: at(n),
      });
      history = nextRevisionHistory(history, {
        deployment: deployment(n, n),
        latestStatus: 'DEPLOYED',
        now: at(n + 0.5),
      });
      expect(history.length).toBeLessThanOrEqual(REVISION_HISTORY_LIMIT);
    }
    expect(history?.map((entry) => entry.id)).toEqual(
      Array.from({ length: REVISION_HISTORY_LIMIT }, (_, i) => rev(100 - i)),
    );
    // The object stays small: the whole history of image revisions in a few KB.
    expect(JSON.stringify(history).length).toBeLessThan(3_000);
  });
});
