// What a probe outcome means for the conditions, and when to probe next. A refused credential
// is Ready=False at once; a control plane that cannot be asked (down, throttling) leaves a
// Ready=True as it was, because the key did not change and objects keep running, and
// otherwise says Unknown. Failures back off (5 s doubling to 5 min, with jitter); a healthy
// connection is probed again after the slow interval, jittered so that many connections do
// not probe in step.
import { backoffDelay } from '../../runtime/backoff.js';
import type { ConnectionCondition } from '../../api/connection/index.js';
import type { ConnectionConditionUpdate } from './conditions.js';
import type { ProbeOutcome } from './probe.js';

export interface ProbeTimings {
  /** Between probes of a healthy connection; jittered ±20%. */
  intervalMs: number;
  /** First retry after a failed probe; doubles to maxBackoffMs. */
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_PROBE_TIMINGS: ProbeTimings = {
  intervalMs: 5 * 60_000,
  initialBackoffMs: 5_000,
  maxBackoffMs: 5 * 60_000,
};

export function probeHealthy(outcome: ProbeOutcome): boolean {
  return outcome.auth.kind === 'ok' && outcome.platform.ok && outcome.privateDomain?.ok !== false;
}

/** Milliseconds until the next probe, given the outcome and the failures before it. */
export function nextProbeDelay(
  outcome: ProbeOutcome,
  failuresBefore: number,
  timings: ProbeTimings,
  random: () => number,
): number {
  if (probeHealthy(outcome)) return timings.intervalMs * (0.8 + 0.4 * random());
  const backoff = backoffDelay(failuresBefore, {
    initialMs: timings.initialBackoffMs,
    maxMs: timings.maxBackoffMs,
    jitter: 0.2,
    random,
  });
  return outcome.auth.kind === 'throttled' ? Math.max(backoff, outcome.auth.retryAfterMs) : backoff;
}

export function probeConditions(
  outcome: ProbeOutcome,
  previousReady: ConnectionCondition | undefined,
  credentialSource: string,
): ConnectionConditionUpdate[] {
  return [readyCondition(outcome, previousReady, credentialSource), reachableCondition(outcome)];
}

function readyCondition(
  outcome: ProbeOutcome,
  previous: ConnectionCondition | undefined,
  credentialSource: string,
): ConnectionConditionUpdate {
  const auth = outcome.auth;
  switch (auth.kind) {
    case 'ok':
      return {
        type: 'Ready',
        status: 'True',
        reason: 'Authenticated',
        message: 'The credential authenticates (GET /v2/listeners answered).',
      };
    case 'refused':
      // Status 0: the operator itself did not send it (the address policy refused the URL).
      if (auth.status === 0) {
        return {
          type: 'Ready',
          status: 'False',
          reason: 'AddressNotAllowed',
          message: `The probe was not sent: ${auth.message}`,
        };
      }
      return auth.status === 401 || auth.status === 403
        ? {
            type: 'Ready',
            status: 'False',
            reason: 'Unauthorized',
            message: `The control plane refuses the credential (HTTP ${auth.status}); check ${credentialSource} (and tenantId, if set).`,
          }
        : {
            type: 'Ready',
            status: 'False',
            reason: 'Refused',
            message: `The control plane refused the probe (HTTP ${auth.status}); check the URL and its path prefix: ${auth.message}`,
          };
    case 'unavailable':
    case 'throttled':
      if (previous?.status === 'True') {
        return { type: 'Ready', status: 'True', reason: previous.reason, message: previous.message };
      }
      return {
        type: 'Ready',
        status: 'Unknown',
        reason: auth.kind === 'throttled' ? 'Throttled' : 'Unreachable',
        message: `The credential could not be checked: ${auth.message}`,
      };
  }
}

function reachableCondition(outcome: ProbeOutcome): ConnectionConditionUpdate {
  if (!outcome.platform.ok) {
    return { type: 'Reachable', status: 'False', reason: 'Unreachable', message: outcome.platform.message };
  }
  if (outcome.privateDomain !== undefined && !outcome.privateDomain.ok) {
    return {
      type: 'Reachable',
      status: 'False',
      reason: 'PrivateDomainUnreachable',
      message: `The platform API answers, the private domain does not: ${outcome.privateDomain.message}`,
    };
  }
  return {
    type: 'Reachable',
    status: 'True',
    reason: 'Reachable',
    message:
      outcome.privateDomain === undefined
        ? 'The platform API answers /ok.'
        : 'The platform API and the private domain answer /ok.',
  };
}
