import { describe, expect, it } from 'vitest';
import { ConfigError, parseOperatorConfig } from '../../src/operator/config.js';
import { parseDuration } from '../../src/operator/duration.js';

const env = { AGENT_OPERATOR_API_KEY: 'key-from-env' };

function parse(argv: string[], extraEnv: Record<string, string> = {}, files: Record<string, string> = {}) {
  const result = parseOperatorConfig({
    argv,
    env: { ...env, ...extraEnv },
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
      return text;
    },
  });
  if (result.help) throw new Error('unexpected help');
  return result.config;
}

describe('agent-operator run configuration', () => {
  it('lets only the operator namespace delete data through the default connection unless told otherwise', () => {
    expect(parse(['--leader-election-namespace', 'agent-system']).dataDeletionNamespaces).toEqual([
      'agent-system',
    ]);
    expect(parse(['--data-deletion-namespaces', 'privacy, ops']).dataDeletionNamespaces).toEqual([
      'privacy',
      'ops',
    ]);
    expect(parse(['--data-deletion-namespaces', '*']).dataDeletionNamespaces).toBe('all');
    expect(parse(['--data-deletion-namespaces=']).dataDeletionNamespaces).toEqual([]);
    expect(parse([], { AGENT_OPERATOR_DATA_DELETION_NAMESPACES: 'privacy' }).dataDeletionNamespaces).toEqual([
      'privacy',
    ]);
    expect(() => parse(['--data-deletion-namespaces', 'a/b'])).toThrow(
      /--data-deletion-namespaces: "a\/b" is not a namespace name/,
    );
  });

  it('reads agent hosts as patterns and refuses a bad one, naming the flag and the rule', () => {
    expect(parse([]).agentHosts).toEqual([]);
    expect(parse(['--agent-hosts', 'agents.example.com, *.apps.example.com:8443']).agentHosts).toEqual([
      { wildcard: false, host: 'agents.example.com' },
      { wildcard: true, host: 'apps.example.com', port: 8443 },
    ]);
    expect(() => parse(['--agent-hosts', 'https://agents.example.com'])).toThrow(
      /--agent-hosts: "https:\/\/agents.example.com" is not host, \*.domain or either with :port/,
    );
    expect(() => parse(['--agent-hosts', '*.com'])).toThrow(
      /--agent-hosts: "\*.com": a wildcard must name a domain/,
    );
  });

  it('allows private networks for tenant URLs only when told', () => {
    expect(parse([]).allowPrivateNetworks).toBe(false);
    expect(parse(['--allow-private-networks']).allowPrivateNetworks).toBe(true);
    expect(parse([], { AGENT_OPERATOR_ALLOW_PRIVATE_NETWORKS: 'true' }).allowPrivateNetworks).toBe(true);
  });

  it('has the documented defaults', () => {
    expect(parse([])).toMatchObject({
      region: 'us',
      namespaces: [],
      concurrency: 16,
      resyncPeriodMs: 600_000,
      pollIntervalMs: 2_000,
      leaderElect: false,
      leaderElectionId: 'agent-operator',
      metricsBindAddress: { host: '0.0.0.0', port: 8080 },
      logLevel: 'info',
      apiKey: 'key-from-env',
    });
  });

  it('permits adoption nowhere by default (a namespace adopts back only its own orphans), in listed namespaces, or everywhere with *', () => {
    expect(parse([]).adoptionNamespaces).toEqual([]);
    expect(parse(['--adoption-namespaces', '*']).adoptionNamespaces).toBeUndefined();
    expect(parse(['--adoption-namespaces', 'team-a, team-b']).adoptionNamespaces).toEqual([
      'team-a',
      'team-b',
    ]);
    expect(parse(['--adoption-namespaces=']).adoptionNamespaces).toEqual([]);
    expect(parse([], { AGENT_OPERATOR_ADOPTION_NAMESPACES: 'ops' }).adoptionNamespaces).toEqual(['ops']);
    expect(() => parse(['--adoption-namespaces', 'Team_A'])).toThrow(
      /--adoption-namespaces: "Team_A" is not a namespace name/,
    );
  });

  it('takes flags over environment variables', () => {
    const config = parse(
      [
        '--namespaces',
        'a, b',
        '--concurrency',
        '9',
        '--resync-period',
        '1h30m',
        '--rate-limit',
        '200/2',
        '--region',
        'eu',
      ],
      {
        AGENT_OPERATOR_NAMESPACES: 'x',
        AGENT_OPERATOR_CONCURRENCY: '2',
        AGENT_OPERATOR_LEADER_ELECT: 'true',
      },
    );
    expect(config).toMatchObject({
      namespaces: ['a', 'b'],
      concurrency: 9,
      resyncPeriodMs: 5_400_000,
      rateLimit: { count: 200, windowSeconds: 2 },
      region: 'eu',
      leaderElect: true,
    });
  });

  it('follows pushed revisions every 10 s unless --push-poll-period (or its variable) says otherwise', () => {
    expect(parse([]).pushPollMs).toBe(10_000);
    expect(parse(['--push-poll-period', '30s']).pushPollMs).toBe(30_000);
    expect(parse(['--push-poll-period=2m']).pushPollMs).toBe(120_000);
    expect(parse([], { AGENT_OPERATOR_PUSH_POLL_PERIOD: '5s' }).pushPollMs).toBe(5_000);
    expect(parse(['--push-poll-period', '15s'], { AGENT_OPERATOR_PUSH_POLL_PERIOD: '5s' }).pushPollMs).toBe(15_000);
  });

  it('reads the API key from a file, trimmed, and prefers it to the environment', () => {
    expect(parse(['--api-key-file', '/k'], {}, { '/k': 'file-key\n' }).apiKey).toBe('file-key');
  });

  it('has no flag that takes the key itself', () => {
    expect(() => parse(['--api-key', 'visible-in-ps'])).toThrow(ConfigError);
  });

  it.each([
    [['--region', 'mars'], /--region: must be "us" or "eu"/],
    [['--concurrency', '0'], /--concurrency: must be a whole number from 1 to 1000/],
    [['--resync-period', '10 minutes'], /--resync-period: must be a duration/],
    [['--push-poll-period', 'soon'], /--push-poll-period: must be a duration .*, at least 1000 ms; got "soon"/],
    [['--push-poll-period', '500ms'], /--push-poll-period: must be a duration .*, at least 1000 ms; got "500ms"/],
    [['--rate-limit', '10 per second'], /--rate-limit: must be <count>\/<seconds>/],
    [['--metrics-bind-address', 'nowhere'], /--metrics-bind-address: must be <host>:<port>/],
    [['--log-level', 'loud'], /--log-level: must be one of/],
    [['--control-plane-url', 'ftp://x'], /--control-plane-url: must be an http\(s\) URL/],
    [['--tenant-id', '42'], /--tenant-id: must be a UUID/],
    [['--api-key-file', '/missing'], /--api-key-file: cannot read "\/missing" \(ENOENT\)/],
  ])('rejects %j naming the flag and the rule', (argv, message) => {
    expect(() => parse(argv)).toThrow(message);
  });

  it('explains where the key comes from when there is none, without inventing one', () => {
    expect(() => parseOperatorConfig({ argv: [], env: {}, readFile: () => '' })).toThrow(
      /--api-key-file <path> or the environment variable AGENT_OPERATOR_API_KEY/,
    );
  });

  it.each([
    ['250ms', 250],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['10', undefined],
    ['', undefined],
    ['5 m', undefined],
  ])('parses the duration %j', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});
