import { describe, expect, it } from 'vitest';
import { parseOperatorConfig } from '../../src/operator/config.js';
import { SHARD_LABEL, shardScope } from '../../src/operator/shard.js';

function parse(argv: string[], env: Record<string, string> = {}) {
  const result = parseOperatorConfig({
    argv,
    env: { AGENT_OPERATOR_API_KEY: 'k', ...env },
    readFile: () => '',
  });
  if (result.help) throw new Error('unexpected help');
  return result.config;
}

describe('--shard', () => {
  it('is off by default: no selector, the Lease named by --leader-election-id', () => {
    const config = parse([]);
    expect(config.shard).toBeUndefined();
    expect(shardScope(config.shard, config.leaderElectionId)).toEqual({
      name: undefined,
      labelSelector: undefined,
      leaseName: 'agent-operator',
    });
  });

  it('selects its label value and takes its own Lease, from the flag or the environment', () => {
    const config = parse(['--shard', 'team-a', '--leader-election-id', 'ops']);
    expect(shardScope(config.shard, config.leaderElectionId)).toEqual({
      name: 'team-a',
      labelSelector: `${SHARD_LABEL}=team-a`,
      leaseName: 'ops-team-a',
    });
    expect(parse([], { AGENT_OPERATOR_SHARD: 'b' }).shard).toBe('b');
    expect(parse(['--shard', 'c'], { AGENT_OPERATOR_SHARD: 'b' }).shard).toBe('c');
  });

  it('the default shard selects the objects without the label', () => {
    expect(shardScope('default', 'agent-operator')).toEqual({
      name: 'default',
      labelSelector: '!agentplatform.io/shard',
      leaseName: 'agent-operator-default',
    });
  });

  it('refuses a name that is not a DNS label, naming the flag and the rule', () => {
    for (const bad of ['', 'Team-A', 'a_b', '-a', 'a-', 'a'.repeat(64), 'a,b']) {
      expect(() => parse([`--shard=${bad}`]), bad).toThrow(/--shard: must be a DNS label/);
    }
  });
});
