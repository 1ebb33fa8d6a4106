// The last line of defence of every emulator server. In node:http a 'request' listener that
// throws, a promise it returns that rejects unobserved, and an 'error' event on a response
// that nobody listens to (a write after end) each end the whole process, so one bad request
// would take the emulator down for everyone using it. Every server the emulators start wraps
// its handler in guardRequests: the error is reported to the emulator's log and the client
// gets the emulator's 500, or, when the answer had already started, a closed connection
// (a second status line cannot be sent, and ending the body cleanly would pass a truncated
// answer off as a complete one).
import type { IncomingMessage, ServerResponse } from 'node:http';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface RequestGuardOptions {
  /**
   * Writes the emulator's 500 answer. It must not describe the error: messages can quote
   * the request (a body fragment, a header) or the emulator's internals.
   */
  answer500: (res: ServerResponse) => void;
  /** Records an error that no handler answered, where the emulator logs. */
  report: (error: unknown, req: IncomingMessage) => void;
}

/** The path of a request without its query (which can carry values that do not belong in a log). */
export function requestPath(req: IncomingMessage): string {
  const target = req.url ?? '/';
  const queryStart = target.indexOf('?');
  return queryStart < 0 ? target : target.slice(0, queryStart);
}

function reportSafely(options: RequestGuardOptions, error: unknown, req: IncomingMessage): void {
  try {
    options.report(error, req);
  } catch {
    // A failing logger must not turn into the crash the guard is there to prevent.
  }
}

function fail(options: RequestGuardOptions, error: unknown, req: IncomingMessage, res: ServerResponse): void {
  reportSafely(options, error, req);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  try {
    options.answer500(res);
  } catch {
    res.destroy();
  }
}

export function guardRequests(
  handler: RequestHandler,
  options: RequestGuardOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    res.on('error', (error) => reportSafely(options, error, req));
    let outcome: void | Promise<void>;
    try {
      outcome = handler(req, res);
    } catch (error) {
      fail(options, error, req, res);
      return;
    }
    if (outcome instanceof Promise) outcome.catch((error: unknown) => fail(options, error, req, res));
  };
}
