// Flag values of the benchmarks' command lines.

/** `--name <n>` as an integer >= 1, or the fallback when absent; throws naming the flag otherwise. */
export function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new Error(`--${name} must be an integer >= 1 (got "${value}")`);
  return parsed;
}
