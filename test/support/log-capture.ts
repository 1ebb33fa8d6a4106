// A logger whose lines a test can read. The emulators log each error no handler expected
// (and answer it with a bare 500); the tests of that check the log, not stderr.
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/observability/logger.js';

export interface CapturedLog {
  /** Logs at level error and above, as pino JSON, into `lines`. */
  logger: Logger;
  lines: Record<string, unknown>[];
  /** Every line so far as one string, to look for a message anywhere in them. */
  text(): string;
  clear(): void;
}

export function captureLog(name: string): CapturedLog {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return {
    logger: createLogger({ level: 'error', name, destination }),
    lines,
    text: () => JSON.stringify(lines),
    clear: () => {
      lines.length = 0;
    },
  };
}
