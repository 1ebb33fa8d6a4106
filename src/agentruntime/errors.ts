// Failures of a call to a deployed agent, as values with a kind the caller can act on
// (retry, give up, tell the user). Messages are cut short and never carry the API key,
// whatever the server or the SDK put in them.
import { encodedForms } from '../controlplane/client/redact.js';

export type AgentCallErrorKind =
  /** 401: no key, or the X-Auth-Scheme header is missing or wrong. */
  | 'unauthorized'
  /** 403: the key is not valid. */
  | 'forbidden'
  /** 404: no such agent for this key (another workspace's key reads as this too), thread or assistant. */
  | 'not-found'
  /** 409: the thread is busy and the run asked to be rejected. */
  | 'conflict'
  /** 400/422: the request was malformed. */
  | 'rejected'
  /** 429, 5xx (503 while the agent has no deployed revision): worth retrying later. */
  | 'unavailable'
  /** The graph raised: the run ended in error. */
  | 'graph'
  /** The call took longer than its timeout. */
  | 'timeout'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** No connection: refused, reset, DNS. */
  | 'unreachable'
  /** An answer the client could not read. */
  | 'protocol';

export interface AgentCallError {
  kind: AgentCallErrorKind;
  /** The HTTP status, when the server answered one. */
  status?: number;
  /** One line, at most MAX_MESSAGE_LENGTH characters, without the key. */
  message: string;
}

export type AgentCallResult<T> = { ok: true; value: T } | { ok: false; error: AgentCallError };

export const MAX_MESSAGE_LENGTH = 300;

/** Whether a later attempt may succeed with the same request. */
export function isRetryable(error: AgentCallError): boolean {
  return error.kind === 'unavailable' || error.kind === 'timeout' || error.kind === 'unreachable';
}

export function kindOfStatus(status: number): AgentCallErrorKind {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not-found';
  if (status === 409) return 'conflict';
  if (status === 429 || status >= 500) return 'unavailable';
  return 'rejected';
}

/**
 * Removes the keys in every form they could take in a message or a quoted reply: plain,
 * JSON-escaped, URL-encoded, base64 (at any alignment) and hex, the forms the control-plane
 * client's redaction knows. Longest first, so that a form containing another goes whole.
 */
export function redact(text: string, ...secrets: string[]): string {
  const forms = [...new Set(secrets.filter((secret) => secret !== '').flatMap(encodedForms))]
    .filter((form) => form !== '')
    .sort((a, b) => b.length - a.length);
  let result = text;
  for (const form of forms) result = result.split(form).join('[redacted]');
  return result;
}

export function callError(
  kind: AgentCallErrorKind,
  message: string,
  /** The key, or every secret the call carried (the key and custom header values). */
  secret: string | readonly string[],
  status?: number,
): AgentCallError {
  const oneLine = redact(message, ...(typeof secret === 'string' ? [secret] : secret))
    .replace(/\s+/g, ' ')
    .trim();
  const text = oneLine.length > MAX_MESSAGE_LENGTH ? `${oneLine.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : oneLine;
  return status === undefined ? { kind, message: text } : { kind, status, message: text };
}
