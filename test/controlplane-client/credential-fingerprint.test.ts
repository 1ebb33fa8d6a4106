// The credential's fingerprint (debug logs, the rate budget's bucket identity) is stable in
// a process but is not a plain hash, so a log reader cannot test key guesses against it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { credentialFingerprint } from '../../src/controlplane/budget/credential-fingerprint.js';

const KEY = 'sk-fingerprint-test-0001';

describe('credentialFingerprint', () => {
  it('is stable within the process and tells keys apart', () => {
    expect(credentialFingerprint(KEY)).toBe(credentialFingerprint(KEY));
    expect(credentialFingerprint(KEY)).toMatch(/^[0-9a-f]{16}$/);
    expect(credentialFingerprint(`${KEY}x`)).not.toBe(credentialFingerprint(KEY));
  });

  it('is not a prefix of the plain SHA-256, and differs in another process', () => {
    const plain = createHash('sha256').update(KEY).digest('hex');
    expect(plain.startsWith(credentialFingerprint(KEY))).toBe(false);
    const other = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { credentialFingerprint } from './src/controlplane/budget/credential-fingerprint.ts'; process.stdout.write(credentialFingerprint(${JSON.stringify(KEY)}));`,
      ],
      { cwd: new URL('../..', import.meta.url).pathname, encoding: 'utf8' },
    );
    expect(other.status).toBe(0);
    expect(other.stdout).toMatch(/^[0-9a-f]{16}$/);
    expect(other.stdout).not.toBe(credentialFingerprint(KEY));
  });
});
