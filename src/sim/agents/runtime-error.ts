// An error that knows its answer: plain text for the server's own errors, or the
// ZodError-shaped JSON the real server sends for a malformed request.
import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import { writeJson, writeText } from './http-io.js';

export class RuntimeHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly json?: unknown,
  ) {
    super(message);
  }

  write(res: ServerResponse): void {
    if (this.json !== undefined) writeJson(res, this.status, this.json);
    else writeText(res, this.status, this.message);
  }
}

export function zodFailure(issues: readonly z.core.$ZodIssue[]): RuntimeHttpError {
  const message = issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  return new RuntimeHttpError(400, message, { success: false, error: { issues, name: 'ZodError' } });
}

export function threadNotFound(threadId: string): RuntimeHttpError {
  return new RuntimeHttpError(404, `Thread with ID ${threadId} not found`);
}

export function assistantNotFound(assistantId: string): RuntimeHttpError {
  return new RuntimeHttpError(
    404,
    `No assistant found for "${assistantId}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`,
  );
}
