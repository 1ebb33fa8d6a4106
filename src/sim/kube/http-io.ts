// Reading request bodies and writing JSON responses the way the real server frames them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './api-error.js';
import { MAX_BODY_BYTES, checkJsonTextNesting } from './body-limits.js';
import { assertNoPrototypeKeys } from './prototype-guard.js';

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export function parseJsonBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (!text.trim()) throw badRequest('the body of the request was empty');
  checkJsonTextNesting(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest(`error decoding request body: ${error instanceof Error ? error.message : String(error)}`);
  }
  assertNoPrototypeKeys(parsed);
  return parsed;
}

/** `Warning: 299 - "text"` headers, as the real server sends validation warnings. */
export function warningHeaders(warnings: string[]): string[] {
  return warnings.map((w) => `299 - ${JSON.stringify(w)}`);
}

export function sendJson(
  response: ServerResponse,
  code: number,
  body: unknown,
  extraHeaders: Record<string, string | string[]> = {},
  contentType = 'application/json',
): void {
  if (response.headersSent || response.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(code, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
    ...extraHeaders,
  });
  response.end(text);
}

export function sendError(response: ServerResponse, error: ApiError, extraHeaders: Record<string, string> = {}): void {
  sendJson(response, error.code, error.toStatus(), extraHeaders);
}
