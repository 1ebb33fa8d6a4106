// Reads a response body with a ceiling: a misbehaving server or proxy must not make the
// operator buffer an unbounded answer. The largest legitimate answer (a page of 100
// deployments with their resource specs) is well under a megabyte.
import type { Readable } from 'node:stream';

/** Answers above this size are abandoned (the socket is closed, not read to the end). */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export class ResponseTooLargeError extends Error {
  readonly code = 'RESPONSE_TOO_LARGE';
  constructor(limit: number) {
    super(`response body exceeds ${limit} bytes`);
  }
}

export async function readBoundedText(body: Readable, limit = MAX_RESPONSE_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) {
      body.destroy();
      throw new ResponseTooLargeError(limit);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
