// Buckets, logs and metrics need to tell credentials apart without holding them: they use a
// fingerprint, a short prefix of a SHA-256 digest, from which the key cannot be recovered.
import { createHash } from 'node:crypto';

export function credentialFingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}
