// Buckets, logs and metrics need to tell credentials apart without holding them. A plain
// hash prefix would let anyone who reads the logs test guesses of the key offline, so the
// fingerprint is an HMAC under a random key drawn once per process: stable for the life of
// the process (the rate budget keys its buckets on it), meaningless outside it.
import { createHmac, randomBytes } from 'node:crypto';

const PROCESS_KEY = randomBytes(32);

export function credentialFingerprint(secret: string): string {
  return createHmac('sha256', PROCESS_KEY).update(secret).digest('hex').slice(0, 16);
}
