// Reading what a server says about its limits. The control plane documents none of these
// headers (docs/api/control-plane.md: "a client must work without them and use them when present"),
// so every one is optional and a malformed value is ignored rather than trusted.
import type { ServerRateState } from './adaptive-bucket.js';

export type HeaderBag = Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() === '' ? undefined : first?.trim();
}

function nonNegativeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/**
 * `Retry-After` as milliseconds from `nowMs`: delta-seconds ("120", also "1.5") or an
 * HTTP-date. A date in the past gives 0; garbage gives undefined.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const seconds = nonNegativeNumber(text);
  if (seconds !== undefined) return seconds * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export function retryAfterFrom(headers: HeaderBag, nowMs: number): number | undefined {
  return parseRetryAfter(header(headers, 'retry-after'), nowMs);
}

/**
 * A reset value as milliseconds from now. `X-RateLimit-Reset` is delta seconds on some
 * servers and epoch seconds on others (GitHub); a value past 10^9 can only be an epoch.
 */
function resetMs(value: number | undefined, wallClockMs: number): number | undefined {
  if (value === undefined) return undefined;
  if (value > 1e9) return Math.max(0, value * 1000 - wallClockMs);
  return value * 1000;
}

/** Parameters of a structured field item such as `"default";q=100;w=60` or `limit=100, remaining=5`. */
function structuredParameters(text: string): Map<string, number> {
  const parameters = new Map<string, number>();
  for (const part of text.split(/[;,]/)) {
    const match = /^\s*([a-z-]+)\s*=\s*(\d+(?:\.\d+)?)\s*$/i.exec(part);
    if (match?.[1] !== undefined && match[2] !== undefined)
      parameters.set(match[1].toLowerCase(), Number(match[2]));
  }
  return parameters;
}

/**
 * What the response headers say about the limit: `X-RateLimit-Limit/Remaining/Reset`, the IETF
 * draft's `RateLimit-Limit/Remaining/Reset` and `RateLimit-Policy` (`100;w=10`), and the later
 * draft's combined `RateLimit` (`limit=100, remaining=5, reset=3` or `"p";r=5;t=3`).
 * `wallClockMs` is the current epoch time, needed for epoch-valued resets.
 */
export function serverRateStateFrom(headers: HeaderBag, wallClockMs: number): ServerRateState | undefined {
  const state: ServerRateState = {};
  const limit =
    nonNegativeNumber(header(headers, 'ratelimit-limit')) ??
    nonNegativeNumber(header(headers, 'x-ratelimit-limit'));
  const remaining =
    nonNegativeNumber(header(headers, 'ratelimit-remaining')) ??
    nonNegativeNumber(header(headers, 'x-ratelimit-remaining'));
  const reset =
    nonNegativeNumber(header(headers, 'ratelimit-reset')) ??
    nonNegativeNumber(header(headers, 'x-ratelimit-reset'));
  if (limit !== undefined) state.limit = limit;
  if (remaining !== undefined) state.remaining = remaining;
  const resetInMs = resetMs(reset, wallClockMs);
  if (resetInMs !== undefined) state.resetMs = resetInMs;

  const policy = header(headers, 'ratelimit-policy');
  if (policy !== undefined) {
    const leading = /^\s*(\d+)/.exec(policy)?.[1];
    const parameters = structuredParameters(policy);
    const quota = leading !== undefined ? Number(leading) : parameters.get('q');
    if (quota !== undefined && state.limit === undefined) state.limit = quota;
    const window = parameters.get('w');
    if (window !== undefined && window > 0) state.windowSeconds = window;
  }
  const combined = header(headers, 'ratelimit');
  if (combined !== undefined) {
    const parameters = structuredParameters(combined);
    const combinedLimit = parameters.get('limit');
    const combinedRemaining = parameters.get('remaining') ?? parameters.get('r');
    const combinedReset = parameters.get('reset') ?? parameters.get('t');
    if (combinedLimit !== undefined && state.limit === undefined) state.limit = combinedLimit;
    if (combinedRemaining !== undefined && state.remaining === undefined) state.remaining = combinedRemaining;
    if (combinedReset !== undefined && state.resetMs === undefined) state.resetMs = combinedReset * 1000;
  }
  return Object.keys(state).length === 0 ? undefined : state;
}
