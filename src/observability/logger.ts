// One pino logger configuration for every process. Redaction is a second line of defence:
// code must never hand a secret value to the logger, and these paths catch the shapes in
// which one could slip through (request headers, secret lists, env values).
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { redactSecretFieldsDeep } from '../controlplane/client/redact.js';

export const REDACTED_PATHS = [
  'apiKey',
  'token',
  'headers["x-api-key"]',
  'headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers.authorization',
  'secrets[*].value',
  '*.secrets[*].value',
  'body.secrets[*].value',
  'value',
];

export interface LoggerOptions {
  level?: LevelWithSilent;
  name?: string;
  /** Where to write; defaults to stderr so that stdout stays for a command's own output. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name,
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      // Secret fields inside text (an echoed body, JSON-escaped or not), whatever their length.
      formatters: { log: (record) => redactSecretFieldsDeep(record) as Record<string, unknown> },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? process.stderr,
  );
}

export type { Logger };
