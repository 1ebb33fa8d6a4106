// Identifiers the emulator hands out. Derived ids (tenants, default listeners and
// integrations) are stable across runs so that tests and users can predict them; the
// rest are random. Every uuid satisfies the RFC 9562 layout the shared models check.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** A name-based uuid (version 5 layout, sha256 instead of sha1): same parts, same id. */
export function deriveUuid(...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x50;
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function newUuid(): string {
  return randomUUID();
}

/** A fake git commit sha: 40 hex characters, like a real one. */
export function fakeCommitSha(): string {
  return randomBytes(20).toString('hex');
}

/** What the admin API shows instead of a key: the first 8 hex chars of its sha256. */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
