// The API key travels with every control-plane request: a plain http:// URL is refused
// unless it stays on this machine or --allow-insecure says so.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseOperatorConfig } from '../../src/operator/config.js';

const env = { AGENT_OPERATOR_API_KEY: 'k' };

function parse(argv: string[], extraEnv: Record<string, string> = {}) {
  return parseOperatorConfig({ argv, env: { ...env, ...extraEnv }, readFile: () => '' });
}

describe('--control-plane-url scheme', () => {
  it.each(['http://cp.example', 'http://10.0.0.5:8080/prefix', 'http://127.0.0.1.nip.io'])(
    'refuses %s',
    (url) => {
      expect(() => parse(['--control-plane-url', url])).toThrow(ConfigError);
      expect(() => parse(['--control-plane-url', url])).toThrow(
        /--control-plane-url: plain http .*--allow-insecure/,
      );
    },
  );

  it.each([
    'https://cp.example',
    'http://127.0.0.1:8080',
    'http://localhost:1',
    'http://[::1]:9',
    'http://cp.localhost',
  ])('accepts %s', (url) => {
    expect(parse(['--control-plane-url', url])).toMatchObject({ config: { controlPlaneUrl: url } });
  });

  it('accepts plain http off this machine with --allow-insecure or AGENT_OPERATOR_ALLOW_INSECURE=true', () => {
    expect(parse(['--control-plane-url', 'http://cp.example', '--allow-insecure'])).toMatchObject({
      config: { controlPlaneUrl: 'http://cp.example' },
    });
    expect(
      parse(['--control-plane-url', 'http://cp.example'], { AGENT_OPERATOR_ALLOW_INSECURE: 'true' }),
    ).toMatchObject({ config: { controlPlaneUrl: 'http://cp.example' } });
  });
});
