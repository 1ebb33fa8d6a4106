// Durations as users write them in flags, env and Helm values: "30s", "5m", "1h", "1h30m",
// "250ms". A bare number is refused: its unit would be a guess.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+(?:\.\d+)?(ms|s|m|h))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(PART)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
  }
  return total;
}
