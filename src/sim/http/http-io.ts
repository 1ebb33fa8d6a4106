// Reading request bodies and writing JSON answers on plain node:http objects.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { detailError } from './http-error.js';

/** Bodies above this size are refused with 413 before they are buffered whole. */
export const MAX_BODY_BYTES = 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit, keep draining (so the 413 can still be written) but stop buffering.
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) reject(detailError(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    // The client went away mid-body: its error, not the emulator's (and no one is left to read the answer).
    req.on('error', () => reject(detailError(400, 'The request body could not be read')));
  });
}

export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}
