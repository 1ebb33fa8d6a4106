// Turns what came back from one attempt into a value or a ControlPlaneError, and says whether
// the failure is worth another attempt and whether it proves the server did not act.
import type { z } from 'zod';
import { DetailError, HTTPValidationError, type ValidationError } from '../models/index.js';
import { retryAfterFrom } from '../budget/rate-limit-headers.js';
import type { TransportResult } from './http-transport.js';
import type { ControlPlaneError } from './errors.js';
import { safeValidationEntries, summarizeDetail, summarizeValidation } from './error-summary.js';
import { redactSecrets, truncate } from './redact.js';
import { RETRYABLE_STATUSES } from './retry-policy.js';

export interface AttemptContext {
  method: string;
  route: string;
  attempts: number;
  /** Texts to scrub from anything taken from a response: the credential and the body's secret values. */
  secrets: readonly string[];
  /** Epoch ms, to read HTTP-date Retry-After values. */
  wallClockMs: number;
}

export interface AttemptFailure {
  type: 'failure';
  error: ControlPlaneError;
  retryable: boolean;
  neverReached: boolean;
  /** Metric label for a retry: the status, or the transport cause. */
  reason: string;
  /** Retry-After of the response, if it sent one. */
  retryAfterMs?: number;
}

export type AttemptOutcome<T> = { type: 'success'; value: T } | AttemptFailure;

/** `null`: the operation answers no body (DELETE -> 204). */
export type ResponseSchema<T> = z.ZodType<T> | null;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

interface ErrorBody {
  /** Safe for events and status: location and rule, or a fixed description. */
  summary: string;
  validation: ValidationError[];
  /** The server's text, redacted: debug logs only. */
  serverDetail: string;
}

function readErrorBody(status: number, text: string, secrets: readonly string[]): ErrorBody {
  const json = parseJson(text);
  const validation = HTTPValidationError.safeParse(json);
  if (validation.success) {
    // The zod model keeps loc, msg and type only: FastAPI's `input` (which may echo a secret) is dropped.
    const entries = validation.data.detail;
    const serverText = entries.map((entry) => `${entry.loc.join('.')}: ${entry.msg}`).join('; ');
    return {
      summary: summarizeValidation(entries),
      validation: safeValidationEntries(entries),
      serverDetail: truncate(redactSecrets(serverText, secrets)),
    };
  }
  const detail = DetailError.safeParse(json);
  const raw = detail.success ? detail.data.detail : text.trim() === '' ? '(no body)' : text;
  return {
    summary: summarizeDetail(status, detail.success ? detail.data.detail : undefined),
    validation: [],
    serverDetail: truncate(redactSecrets(raw, secrets)),
  };
}

function describeShapeProblem(error: z.ZodError): string {
  // Path and rule only: zod's messages do not quote the input, and the path holds field names and indices.
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

export function classifyResponse<T>(
  context: AttemptContext,
  result: Extract<TransportResult, { type: 'response' }>,
  schema: ResponseSchema<T>,
): AttemptOutcome<T> {
  const { method, route, attempts } = context;
  const { status } = result;
  const where = `${method} ${route}`;
  const base = { method, route, attempts };

  if (status >= 200 && status < 300) {
    if (schema === null) return { type: 'success', value: undefined as T };
    const parsed = schema.safeParse(parseJson(result.text));
    if (parsed.success) return { type: 'success', value: parsed.data };
    return {
      type: 'failure',
      // It answered 2xx, so it did act: a create may well exist. Not retried (the answer would not change).
      error: {
        kind: 'Transient',
        ...base,
        status,
        unclear: true,
        message: `${where}: unexpected response shape (${describeShapeProblem(parsed.error)})`,
      },
      retryable: false,
      neverReached: false,
      reason: 'shape',
    };
  }

  const body = readErrorBody(status, result.text, context.secrets);
  const message = `${where}: HTTP ${status}: ${body.summary}`;
  const serverDetail = body.serverDetail;
  const retryAfterMs = retryAfterFrom(result.headers, context.wallClockMs);
  const withRetryAfter = retryAfterMs === undefined ? {} : { retryAfterMs };

  if (status === 404) {
    return {
      type: 'failure',
      error: { kind: 'NotFound', ...base, status, detail: body.summary, message, serverDetail },
      retryable: false,
      neverReached: false,
      reason: '404',
    };
  }
  if (status === 409) {
    return {
      type: 'failure',
      error: { kind: 'Conflict', ...base, status, detail: body.summary, message, serverDetail },
      retryable: false,
      neverReached: false,
      reason: '409',
    };
  }
  if (status === 429) {
    // The server refused without acting: safe to repeat whatever the method.
    return {
      type: 'failure',
      error: { kind: 'Throttled', ...base, retryAfterMs: retryAfterMs ?? 0, message, serverDetail },
      retryable: true,
      neverReached: true,
      reason: '429',
      ...withRetryAfter,
    };
  }
  if (RETRYABLE_STATUSES.has(status)) {
    // 425 Too Early means the server declined to process it; the others may follow partial work.
    const neverReached = status === 425;
    return {
      type: 'failure',
      error: { kind: 'Transient', ...base, status, unclear: !neverReached, message, serverDetail },
      retryable: true,
      neverReached,
      reason: String(status),
      ...withRetryAfter,
    };
  }
  if (status >= 400 && status < 500) {
    return {
      type: 'failure',
      error: {
        kind: 'Terminal',
        ...base,
        status,
        detail: body.summary,
        validation: body.validation,
        message,
        serverDetail,
      },
      retryable: false,
      neverReached: false,
      reason: String(status),
    };
  }
  return {
    type: 'failure',
    error: { kind: 'Transient', ...base, status, unclear: true, message, serverDetail },
    retryable: false,
    neverReached: false,
    reason: String(status),
  };
}

/** The code a connection refused by the address policy (src/egress) fails with. */
const ADDRESS_NOT_ALLOWED = 'ERR_ADDRESS_NOT_ALLOWED';

export function classifyTransportFailure(
  context: AttemptContext,
  result: Extract<TransportResult, { type: 'failure' }>,
): AttemptFailure {
  const { method, route, attempts } = context;
  const base = { method, route, attempts };
  const where = `${method} ${route}`;
  switch (result.cause) {
    case 'connect':
      // The address policy refused a tenant-chosen address: deterministic, so never retried,
      // and a property of the URL (like a 400), not of the moment.
      if (result.code === ADDRESS_NOT_ALLOWED) {
        const detail =
          "the operator's address policy refuses this address (a tenant-chosen URL never reaches link-local or metadata addresses, nor loopback or private ones without --allow-private-networks)";
        return {
          type: 'failure',
          error: {
            kind: 'Terminal',
            ...base,
            status: 0,
            detail,
            validation: [],
            message: `${where}: not sent: ${detail}`,
          },
          retryable: false,
          neverReached: true,
          reason: 'connect',
        };
      }
      return {
        type: 'failure',
        error: {
          kind: 'Transient',
          ...base,
          unclear: false,
          message: `${where}: could not connect (${result.code})`,
        },
        retryable: true,
        neverReached: true,
        reason: 'connect',
      };
    case 'reset':
      return {
        type: 'failure',
        error: {
          kind: 'Transient',
          ...base,
          unclear: true,
          message: `${where}: connection reset (${result.code})`,
        },
        retryable: true,
        neverReached: false,
        reason: 'reset',
      };
    case 'timeout':
      return {
        type: 'failure',
        error: {
          kind: 'Transient',
          ...base,
          unclear: true,
          message: `${where}: deadline passed (${result.code})`,
        },
        retryable: true,
        neverReached: false,
        reason: 'timeout',
      };
    case 'aborted':
      return {
        type: 'failure',
        error: { kind: 'Transient', ...base, unclear: true, message: `${where}: aborted by the caller` },
        retryable: false,
        neverReached: false,
        reason: 'aborted',
      };
    case 'other':
      return {
        type: 'failure',
        error: {
          kind: 'Transient',
          ...base,
          unclear: true,
          message: `${where}: request failed (${result.code})`,
        },
        retryable: false,
        neverReached: false,
        reason: 'error',
      };
  }
}
