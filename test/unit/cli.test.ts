import { describe, expect, it } from 'vitest';
import { dispatch } from '../../src/cli.js';

describe('cli dispatch', () => {
  it('rejects an unknown command with exit code 2', async () => {
    expect(await dispatch(['no-such-command'])).toBe(2);
  });
  it('prints usage and exits 0 for --help', async () => {
    expect(await dispatch(['--help'])).toBe(0);
  });
});
