// Errors no handler expected, on every route of the control-plane listener (the control
// plane, the platform data API and the agent runtimes): they are logged with the method and
// path, and the client gets a bare 500. Its body never carries the error: a message can quote
// the request (a body fragment, a header) or the emulator's internals.
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../../observability/logger.js';
import { requestPath, type RequestGuardOptions } from './request-guard.js';
import { HttpError } from './http-error.js';
import { writeJson } from './http-io.js';
import type { Reply } from './reply.js';

const INTERNAL_ERROR: Reply = { status: 500, body: { detail: 'Internal emulator error' } };

export function reportUnexpected(logger: Logger, error: unknown, req: IncomingMessage): void {
  logger.error(
    { err: error, method: req.method, path: requestPath(req) },
    'control-plane emulator: unexpected error',
  );
}

/** An HttpError's own answer; anything else is reported and answered with the bare 500. */
export function replyFromError(error: unknown, report: (error: unknown) => void): Reply {
  if (error instanceof HttpError) return { status: error.status, body: error.body, headers: error.headers };
  report(error);
  return INTERNAL_ERROR;
}

/** The request guard's settings for the control-plane listener. */
export function controlPlaneGuard(logger: Logger): RequestGuardOptions {
  return {
    answer500: (res) => writeJson(res, INTERNAL_ERROR.status, INTERNAL_ERROR.body),
    report: (error, req) => reportUnexpected(logger, error, req),
  };
}
