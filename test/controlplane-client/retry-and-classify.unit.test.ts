import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  classifyResponse,
  classifyTransportFailure,
  type AttemptContext,
} from '../../src/controlplane/client/classify.js';
import { classifyTransportError } from '../../src/controlplane/client/http-transport.js';
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  mayRetry,
} from '../../src/controlplane/client/retry-policy.js';

const context: AttemptContext = {
  method: 'POST',
  route: '/v2/deployments',
  attempts: 1,
  secrets: ['sk-secret-key', 'hunter2-value'],
  wallClockMs: 0,
};
const respond = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  ({
    type: 'response',
    status,
    headers,
    text: typeof body === 'string' ? body : JSON.stringify(body),
  }) as const;
const schema = z.object({ id: z.string() });

describe('backoff', () => {
  it('doubles from 500 ms with equal jitter and caps at 30 s', () => {
    expect(backoffDelayMs(1, DEFAULT_RETRY_POLICY, () => 0)).toBe(250);
    expect(backoffDelayMs(1, DEFAULT_RETRY_POLICY, () => 1)).toBe(500);
    expect(backoffDelayMs(3, DEFAULT_RETRY_POLICY, () => 1)).toBe(2000);
    expect(backoffDelayMs(20, DEFAULT_RETRY_POLICY, () => 1)).toBe(30_000);
    expect(backoffDelayMs(20, DEFAULT_RETRY_POLICY, () => 0)).toBe(15_000);
  });
});

describe('which failures are retried', () => {
  it('retries idempotent methods on any retryable failure', () => {
    for (const method of ['GET', 'PUT', 'DELETE'])
      expect(mayRetry({ method, retryable: true, neverReached: false })).toBe(true);
  });
  it('retries POST and PATCH only when the server never saw the request', () => {
    for (const method of ['POST', 'PATCH']) {
      expect(mayRetry({ method, retryable: true, neverReached: false })).toBe(false);
      expect(mayRetry({ method, retryable: true, neverReached: true })).toBe(true);
    }
  });
  it('never retries what is not retryable, whatever the method', () => {
    for (const method of ['GET', 'POST'])
      expect(mayRetry({ method, retryable: false, neverReached: true })).toBe(false);
  });
});

describe('classification', () => {
  it('maps statuses to kinds and retryability', () => {
    const cases: [number, string, boolean][] = [
      [400, 'Terminal', false],
      [401, 'Terminal', false],
      [403, 'Terminal', false],
      [404, 'NotFound', false],
      [409, 'Conflict', false],
      [422, 'Terminal', false],
      [408, 'Transient', true],
      [425, 'Transient', true],
      [429, 'Throttled', true],
      [500, 'Transient', true],
      [502, 'Transient', true],
      [503, 'Transient', true],
      [504, 'Transient', true],
      [501, 'Transient', false],
    ];
    for (const [status, kind, retryable] of cases) {
      const outcome = classifyResponse(context, respond(status, { detail: 'x' }), schema);
      expect(outcome.type === 'failure' && [outcome.error.kind, outcome.retryable], String(status)).toEqual([
        kind,
        retryable,
      ]);
    }
  });

  it('says a 429 never reached the server (so even a POST may repeat it) and reads its Retry-After', () => {
    const outcome = classifyResponse(
      context,
      respond(429, { detail: 'slow down' }, { 'retry-after': '2' }),
      schema,
    );
    expect(outcome).toMatchObject({
      type: 'failure',
      neverReached: true,
      retryAfterMs: 2000,
      error: { kind: 'Throttled' },
    });
  });

  it('carries the 422 locations and rule types, and a 400 reduced to its field and rule', () => {
    const body = {
      detail: [{ loc: ['body', 'name'], msg: 'field required', type: 'missing', input: 'hunter2-value' }],
    };
    const outcome = classifyResponse(context, respond(422, body), schema);
    expect(outcome.type === 'failure' && outcome.error).toMatchObject({
      kind: 'Terminal',
      status: 422,
      validation: [{ loc: ['body', 'name'], msg: 'field required', type: 'missing' }],
      detail: 'body.name: field required',
      message: 'POST /v2/deployments: HTTP 422: body.name: field required',
    });
    const bad = classifyResponse(
      context,
      respond(400, { detail: 'source_config.listener_id is required for source external_container' }),
      schema,
    );
    expect(bad.type === 'failure' && bad.error).toMatchObject({
      kind: 'Terminal',
      status: 400,
      detail: 'source_config.listener_id: required for this source',
      serverDetail: 'source_config.listener_id is required for source external_container',
    });
  });

  it('keeps server text out of message and detail, and scrubs it in serverDetail', () => {
    const outcome = classifyResponse(
      context,
      respond(400, { detail: 'bad key sk-secret-key for value hunter2-value' }),
      schema,
    );
    expect(outcome.type === 'failure' && outcome.error).toMatchObject({
      message: 'POST /v2/deployments: HTTP 400: the control plane refused the request as invalid',
      detail: 'the control plane refused the request as invalid',
      serverDetail: 'bad key [REDACTED] for value [REDACTED]',
    });
  });

  it('reports a 2xx of the wrong shape as Transient, unclear (the server did act), not retried', () => {
    const outcome = classifyResponse(context, respond(201, { id: 5 }), schema);
    expect(outcome).toMatchObject({
      type: 'failure',
      retryable: false,
      error: { kind: 'Transient', unclear: true },
    });
    expect(outcome.type === 'failure' && outcome.error.message).toMatch(/unexpected response shape \(id: /);
    expect(classifyResponse(context, respond(200, 'not json'), schema).type).toBe('failure');
  });

  it('classifies transport failures: connect never reached, reset and timeout unclear', () => {
    expect(classifyTransportError('ECONNREFUSED')).toBe('connect');
    expect(classifyTransportError('ENOTFOUND')).toBe('connect');
    expect(classifyTransportError('UND_ERR_SOCKET')).toBe('reset');
    expect(classifyTransportError('ECONNRESET')).toBe('reset');
    expect(
      classifyTransportFailure(context, { type: 'failure', cause: 'connect', code: 'ECONNREFUSED' }),
    ).toMatchObject({
      retryable: true,
      neverReached: true,
      error: { kind: 'Transient', unclear: false },
    });
    for (const cause of ['reset', 'timeout'] as const) {
      expect(classifyTransportFailure(context, { type: 'failure', cause, code: 'X' })).toMatchObject({
        retryable: true,
        neverReached: false,
        error: { kind: 'Transient', unclear: true },
      });
    }
  });
});
