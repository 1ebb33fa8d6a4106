// Kubernetes MicroTime is RFC 3339 with exactly 6 fractional digits. @kubernetes/client-node
// serializes Date with 3 (toISOString), which a real API server rejects for Lease
// renewTime/acquireTime, so Lease times are formatted here and sent as plain JSON.

/** "2024-05-01T12:00:00.123000Z" from epoch milliseconds (microseconds are 000: JS has ms). */
export function formatMicroTime(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 23)}000Z`;
}

const MICRO_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** Epoch milliseconds from any RFC 3339 time (any fractional digits); undefined if unparseable. */
export function parseMicroTime(value: string | undefined | null): number | undefined {
  if (!value) return undefined;
  const match = MICRO_TIME.exec(value);
  if (!match) return undefined;
  const [, seconds, fraction, zone] = match;
  const base = Date.parse(`${seconds ?? ''}${zone ?? 'Z'}`);
  if (Number.isNaN(base)) return undefined;
  const millis = fraction ? Number(`0.${fraction}`) * 1000 : 0;
  return base + Math.floor(millis);
}
