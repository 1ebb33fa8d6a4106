// errorPolicy, row by row: every failure class, what happens next, what status shows, and
// the metric label. Each row says why.
import { describe, expect, it } from 'vitest';
import { errorPolicy } from '../../src/reconcilers/agentdeployment/error-policy.js';
import type { Failure } from '../../src/reconcilers/agentdeployment/ports.js';

const rows: Array<{
  name: string;
  reason: string;
  error: Failure;
  then: unknown;
  state?: string;
  label: string;
}> = [
  {
    name: '429 or an empty budget',
    reason: 'wait exactly as long as the budget says, not a backoff',
    error: { kind: 'Throttled', message: 'budget', retryAfterMs: 1_500 },
    then: { kind: 'requeueAfter', ms: 1_500 },
    state: 'Throttled',
    label: 'Throttled',
  },
  {
    name: '5xx, timeout, reset',
    reason: 'capped exponential backoff per key, with jitter',
    error: { kind: 'Transient', message: 'HTTP 503', status: 503 },
    then: { kind: 'backoff' },
    state: 'ControlPlaneUnavailable',
    label: 'Transient',
  },
  {
    name: '401/403',
    reason: 'a property of the credential: back off and recover by itself, never Stalled',
    error: { kind: 'Unauthorized', message: 'HTTP 401: bad key', status: 401 },
    then: { kind: 'backoff' },
    state: 'ControlPlaneUnavailable',
    label: 'Unauthorized',
  },
  {
    name: '409 (kube write or control plane)',
    reason: 'someone wrote first: re-read and retry at once, no backoff',
    error: { kind: 'Conflict', message: 'HTTP 409', status: 409 },
    then: { kind: 'requeueNow' },
    label: 'Conflict',
  },
  {
    name: '404 on a write',
    reason: 'the next observation shows it gone: look again now',
    error: { kind: 'NotFound', message: 'HTTP 404', status: 404 },
    then: { kind: 'requeueNow' },
    label: 'NotFound',
  },
  {
    name: '400/422',
    reason: 'only a spec change can help: Stalled with the server’s words, no retry loop',
    error: { kind: 'Terminal', message: 'HTTP 422: source_config.listener_id: unknown', status: 422 },
    then: { kind: 'stall' },
    state: 'Rejected',
    label: 'Terminal',
  },
];

describe('errorPolicy', () => {
  it.each(rows)('$name: $reason', ({ error, then, state, label }) => {
    const decision = errorPolicy(error);
    expect(decision.then).toEqual(then);
    expect(decision.label).toBe(label);
    expect(decision.state?.kind).toBe(state);
  });

  it('says the key is refused, and carries the server’s reason for a rejection', () => {
    expect(errorPolicy({ kind: 'Unauthorized', message: 'HTTP 401', status: 401 }).state?.message).toMatch(
      /refuses the API key \(HTTP 401\)/,
    );
    expect(errorPolicy({ kind: 'Terminal', message: 'HTTP 400: unknown listener' }).state?.message).toContain(
      'unknown listener',
    );
  });

  it('never waits less than 50 ms on a throttle, so a zero Retry-After cannot spin', () => {
    expect(errorPolicy({ kind: 'Throttled', message: 'x', retryAfterMs: 0 }).then).toEqual({
      kind: 'requeueAfter',
      ms: 50,
    });
  });
});
