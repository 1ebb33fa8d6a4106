// decide with spec.smokeTest, row by row: what a deployed revision owes before it is Ready,
// from the verdict recorded in status and the attempts this process made (plain data in,
// one action out). The call itself is the shell's (test/operator/smoke-test.test.ts).
import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../src/controlplane/models/index.js';
import type { Action } from '../../src/reconcilers/agentdeployment/action.js';
import { decide } from '../../src/reconcilers/agentdeployment/decide.js';
import { DEFAULT_TIMINGS } from '../../src/reconcilers/agentdeployment/defaults.js';
import type { Observed, SmokeTestAttempts } from '../../src/reconcilers/agentdeployment/observed.js';
import { smokeTestSpecHash } from '../../src/reconcilers/agentdeployment/smoke-test.js';
import type { SmokeTest } from '../../src/api/agentdeployment/index.js';
import type { AgentTrust } from '../../src/egress/agent-credential.js';
import { parseHostPatterns } from '../../src/egress/host-patterns.js';
import {
  AGENT_URL,
  DEPLOYMENT_ID,
  DESIRED,
  LISTENER_ID,
  deployedWithUrl,
} from './support/smoke-test-fixtures.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const ID = DEPLOYMENT_ID;
const URL = AGENT_URL;
const t = { ...DEFAULT_TIMINGS, smokeTestRetryMs: 1_000, smokeTestRetryMaxMs: 4_000 };
const SMOKE: SmokeTest = {
  input: { messages: [{ role: 'user', content: 'ping' }] },
  expect: { contains: 'ping' },
  timeoutSeconds: 20,
};
const HASH = smokeTestSpecHash(SMOKE);

function deployment(overrides: Partial<Deployment> = {}): Deployment {
  return deployedWithUrl({ latest_revision_id: 'r2', active_revision_id: 'r2', ...overrides });
}

/** The agent answers on the control plane's own address, where the connection's key may go. */
const PLATFORM_TRUST: AgentTrust = {
  platformUrls: [new globalThis.URL(AGENT_URL).origin],
  agentHosts: [],
  tenantChosenEndpoints: false,
};

interface Given {
  smokeTest?: SmokeTest | undefined;
  trust?: AgentTrust;
  desired?: Extract<Observed['spec'], { kind: 'valid' }>['desired'];
  status?: Observed['status'];
  attempts?: SmokeTestAttempts;
  deployment?: Deployment;
}

function observed(given: Given = {}): Observed {
  const smoke = 'smokeTest' in given ? given.smokeTest : SMOKE;
  const current = given.deployment ?? deployment();
  return {
    now: NOW,
    object: {
      key: 'team-a/bot',
      uid: 'uid-a',
      generation: 1,
      deleting: false,
      hasFinalizer: true,
      suspend: false,
      adoptExisting: false,
      observeOnly: false,
      deletionPolicy: 'Delete',
      deploymentName: 'bot',
      ...(smoke ? { smokeTest: { spec: smoke, hash: smokeTestSpecHash(smoke) } } : {}),
    },
    status: { observedGeneration: 1, secretVersions: [], ...given.status },
    ownership: { deploymentId: ID },
    spec: { kind: 'valid', desired: given.desired ?? DESIRED, secretVersions: {} },
    claims: {},
    deployment: { kind: 'present', deployment: current },
    byName: { kind: 'unobserved' },
    knownRevisions: {},
    revisionPoll: { allowed: false, dueInMs: 1_000 },
    ...(given.attempts ? { smokeTestAttempts: given.attempts } : {}),
    agentTrust: given.trust ?? PLATFORM_TRUST,
  };
}

const attempts = (overrides: Partial<SmokeTestAttempts>): SmokeTestAttempts => ({
  testKey: `r2|${HASH}`,
  attempts: 1,
  firstAttemptAt: NOW - 3_000,
  inFlight: false,
  ...overrides,
});

type Published = Extract<Action, { kind: 'publish' }>;

function published(action: Action): Published {
  expect(action.kind).toBe('publish');
  return action as Published;
}

describe('decide with spec.smokeTest', () => {
  it('no smoke test configured: a deployed revision is Ready as before, and a former smoke test leaves status', () => {
    const action = published(decide(observed({ smokeTest: undefined }), t));
    expect(action.state).toEqual({ kind: 'Deployed', message: 'Revision r2 is deployed' });
    expect(action.facts.smokeTest).toEqual({ kind: 'none' });
    expect(action.facts.agentUrl).toBe(URL);
  });

  it('deployed and never tested: the one call, with the whole budget as its deadline, and not Ready meanwhile', () => {
    const action = decide(observed(), t);
    expect(action).toMatchObject({
      kind: 'smokeTest',
      testKey: `r2|${HASH}`,
      url: URL,
      credential: { kind: 'connection', tenantChosen: false },
      input: SMOKE.input,
      expect: SMOKE.expect,
      timeoutMs: 20_000,
      state: { kind: 'SmokeTestPending' },
      facts: { smokeTest: { kind: 'pending' } },
    });
  });

  it('a call in flight: pending, no second call; the call wakes the key, the timer is a safety net', () => {
    const action = published(decide(observed({ attempts: attempts({ inFlight: true }) }), t));
    expect(action.state.kind).toBe('SmokeTestPending');
    expect(action.requeueAfterMs).toBe(20_000);
  });

  it('the call passed: Ready, with the verdict and the URL recorded for this revision and spec', () => {
    const given = observed({
      attempts: attempts({ last: { kind: 'passed', message: 'the agent answered "ping"' } }),
    });
    const action = published(decide(given, t));
    expect(action.state.kind).toBe('Deployed');
    expect(action.facts.smokeTest).toEqual({
      kind: 'verdict',
      verdict: { revisionId: 'r2', specHash: HASH, result: 'Passed', message: 'the agent answered "ping"' },
    });
    expect(action.facts.agentUrl).toBe(URL);
  });

  it('a verdict recorded in status: no call again (one per revision), whatever this process remembers', () => {
    const status = {
      smokeTest: { revisionId: 'r2', specHash: HASH, result: 'Passed' as const, message: 'ok' },
    };
    expect(published(decide(observed({ status }), t)).state.kind).toBe('Deployed');
    const failed = { smokeTest: { ...status.smokeTest, result: 'Failed' as const, message: 'no' } };
    const action = published(decide(observed({ status: failed }), t));
    expect(action.state).toEqual({
      kind: 'SmokeTestFailed',
      message: 'Revision r2 is deployed but failed its smoke test: no',
    });
  });

  it('a failure that cannot pass later (the reply does not match): SmokeTestFailed at once, not Stalled', () => {
    const given = observed({
      attempts: attempts({ last: { kind: 'failed', message: 'the reply does not contain "ping"' } }),
    });
    const action = published(decide(given, t));
    expect(action.state.kind).toBe('SmokeTestFailed');
    expect(action.facts.smokeTest).toMatchObject({ kind: 'verdict', verdict: { result: 'Failed' } });
    // Only an address that answered as expected is published as status.url.
    expect(action.facts.agentUrl).toBeUndefined();
  });

  it('a retryable failure (warming up): wait the backoff, then call again within what is left of the budget', () => {
    const last = { kind: 'retryable' as const, message: 'unavailable: HTTP 503' };
    const waiting = published(
      decide(observed({ attempts: attempts({ attempts: 2, last, lastFinishedAt: NOW - 500 }) }), t),
    );
    expect(waiting.state.kind).toBe('SmokeTestPending');
    expect(waiting.requeueAfterMs).toBe(1_500); // 2 s after the second failure, 0.5 s of it gone
    const retry = decide(
      observed({ attempts: attempts({ attempts: 2, last, lastFinishedAt: NOW - 2_000 }) }),
      t,
    );
    expect(retry).toMatchObject({ kind: 'smokeTest', timeoutMs: 17_000 });
  });

  it('the backoff is capped (no tight loop, no endless pause)', () => {
    const last = { kind: 'retryable' as const, message: 'timeout' };
    const action = published(
      decide(
        observed({ attempts: attempts({ attempts: 9, last, lastFinishedAt: NOW, firstAttemptAt: NOW - 1 }) }),
        t,
      ),
    );
    expect(action.requeueAfterMs).toBe(4_000);
  });

  it('the budget spent on retryable failures: SmokeTestFailed, quoting the last one', () => {
    const last = { kind: 'retryable' as const, message: 'unavailable: HTTP 503' };
    const given = observed({
      attempts: attempts({ attempts: 5, last, firstAttemptAt: NOW - 20_000, lastFinishedAt: NOW - 5_000 }),
    });
    const action = published(decide(given, t));
    expect(action.state.kind).toBe('SmokeTestFailed');
    expect(action.state.message).toContain(
      'no passing answer within 20 s (5 attempts); last: unavailable: HTTP 503',
    );
  });

  it('a new revision resets it: the old verdict does not count, the condition goes back to pending', () => {
    const status = {
      smokeTest: { revisionId: 'r1', specHash: HASH, result: 'Passed' as const, message: 'ok' },
    };
    const rolling = observed({ status, deployment: deployment({ active_revision_id: 'r1' }) });
    const action = published(decide({ ...rolling, knownRevisions: { r2: 'BUILDING' } }, t));
    expect(action.state.kind).toBe('RevisionInProgress');
    expect(action.facts.smokeTest).toEqual({
      kind: 'pending',
      message: 'Waiting for revision r2 to be deployed',
    });
    // Deployed now: the verdict of r1 is not r2's, so r2 is called.
    expect(decide(observed({ status }), t)).toMatchObject({ kind: 'smokeTest', testKey: `r2|${HASH}` });
  });

  it('a changed smoke test runs again on the same revision (a failed one recovers when the spec changes)', () => {
    const status = {
      smokeTest: { revisionId: 'r2', specHash: HASH, result: 'Failed' as const, message: 'no' },
    };
    const changed: SmokeTest = { ...SMOKE, expect: { contains: 'pong' } };
    expect(decide(observed({ status, smokeTest: changed }), t)).toMatchObject({
      kind: 'smokeTest',
      testKey: `r2|${smokeTestSpecHash(changed)}`,
    });
    // Attempts made for the old spec do not count for the new one.
    const old = attempts({ last: { kind: 'failed', message: 'no' } });
    expect(decide(observed({ status, smokeTest: changed, attempts: old }), t).kind).toBe('smokeTest');
  });

  it('a long failure is cut to what status.smokeTest.message admits (1024), so the status write is never refused', () => {
    const given = observed({ attempts: attempts({ last: { kind: 'failed', message: 'x'.repeat(5_000) } }) });
    const action = published(decide(given, t));
    const verdict = action.facts.smokeTest?.kind === 'verdict' ? action.facts.smokeTest.verdict : undefined;
    expect(verdict?.message.length).toBeLessThanOrEqual(1024);
    expect(verdict?.message.endsWith('…')).toBe(true);
  });

  it('a deployment without a URL cannot be called: SmokeTestFailed saying so', () => {
    const noUrl = deployment({ source_config: { listener_id: LISTENER_ID } });
    const action = published(decide(observed({ deployment: noUrl }), t));
    expect(action.state.message).toContain('no URL');
  });

  describe('where the key may go', () => {
    const tenantUrl = 'https://attacker.example/x';
    const onTenantHost = deployment({ source_config: { listener_id: LISTENER_ID, custom_url: tenantUrl } });

    it("a URL the key's owner did not allow: SmokeTestRefused (Stalled), no call, no verdict recorded", () => {
      const action = published(decide(observed({ deployment: onTenantHost }), t));
      expect(action.state.kind).toBe('SmokeTestRefused');
      expect(action.state.message).toContain(
        "Revision r2 is deployed; its smoke test was not run: the agent URL's host attacker.example was not assigned by the platform and is not in the operator's --agent-hosts",
      );
      expect(action.facts.smokeTest).toMatchObject({ kind: 'refused' });
      expect(action.facts.agentUrl).toBeUndefined();
    });

    it("a host the connection's owner listed: the call, with the connection's key", () => {
      const trust = { ...PLATFORM_TRUST, agentHosts: parseHostPatterns(['attacker.example'], 'test') };
      expect(decide(observed({ deployment: onTenantHost, trust }), t)).toMatchObject({
        kind: 'smokeTest',
        url: tenantUrl,
        credential: { kind: 'connection', tenantChosen: false },
      });
    });

    it("the tenant's own key: the call, with that key only", () => {
      const own = { ...SMOKE, apiKeySecretRef: { name: 'agent-key', key: 'token' } };
      expect(decide(observed({ deployment: onTenantHost, smokeTest: own }), t)).toMatchObject({
        kind: 'smokeTest',
        credential: { kind: 'own', secretName: 'agent-key', secretKey: 'token' },
      });
    });

    it('a repo_host URL was assigned by the platform: the connection key goes there', () => {
      const assigned = deployment({
        source: 'repo_host',
        source_config: { custom_url: 'https://bot-1a2b.us.platform.example' },
        source_revision_config: {},
      });
      const desired = {
        name: 'bot',
        source: 'repo_host' as const,
        source_config: {},
        source_revision_config: {},
        secrets: [],
      };
      expect(decide(observed({ deployment: assigned, desired }), t)).toMatchObject({
        kind: 'smokeTest',
        credential: { kind: 'connection', tenantChosen: false },
      });
    });

    it('no trust known: only platform-assigned URLs get the key (fail closed)', () => {
      const unknown = observed({});
      delete unknown.agentTrust;
      expect(published(decide(unknown, t)).state.kind).toBe('SmokeTestRefused');
    });
  });
});
