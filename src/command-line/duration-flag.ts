// Durations in every command's flags, one rule for all: a number with its unit ("250ms", "30s",
// "2m", "1h30m"), or a bare number, which is seconds (what `--timeout 60` meant before units).
import { parseDuration } from '../operator/duration.js';

/** What an error says a duration flag takes. */
export const DURATION_RULE = 'a duration such as 30s, 2m or 1h (a bare number is seconds)';

const BARE_SECONDS = /^\d+(\.\d+)?$/;

/** Milliseconds, or undefined when `text` is not a duration. */
export function parseDurationFlag(text: string): number | undefined {
  const trimmed = text.trim();
  if (BARE_SECONDS.test(trimmed)) return Number(trimmed) * 1000;
  return parseDuration(trimmed);
}
