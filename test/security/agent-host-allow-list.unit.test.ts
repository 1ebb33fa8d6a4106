// Where a shared key may be sent when a deployed agent is called: the host allow-list
// (patterns, as the WHATWG parser reads URLs), the choice of key, and the addresses the
// operator refuses to connect to on a tenant's behalf. Pure functions; the end-to-end
// attacks are in attacker-credentials.test.ts.
import { describe, expect, it } from 'vitest';
import { addressProblem, classifyAddress } from '../../src/egress/address-policy.js';
import { chooseAgentCredential, type AgentTrust } from '../../src/egress/agent-credential.js';
import {
  anyHostPatternMatches,
  parseHostPattern,
  parseHostPatterns,
  type HostPattern,
} from '../../src/egress/host-patterns.js';
import { urlAddressProblem } from '../../src/egress/guarded-lookup.js';

const patterns = (...texts: string[]): HostPattern[] => parseHostPatterns(texts, 'test');
const admits = (list: HostPattern[], url: string) => anyHostPatternMatches(list, new URL(url));

describe('host patterns', () => {
  it('an exact host admits that host on the default port of its scheme only', () => {
    const list = patterns('agents.example.com');
    expect(admits(list, 'https://agents.example.com/x')).toBe(true);
    expect(admits(list, 'https://AGENTS.Example.COM./x')).toBe(true);
    expect(admits(list, 'http://agents.example.com/x')).toBe(true);
    expect(admits(list, 'https://agents.example.com:8443/x')).toBe(false);
    expect(admits(list, 'https://evil-agents.example.com/')).toBe(false);
    expect(admits(list, 'https://agents.example.com.evil.example/')).toBe(false);
    expect(admits(list, 'https://x.agents.example.com/')).toBe(false);
  });

  it('a wildcard admits hosts below the domain, not the domain itself nor look-alikes', () => {
    const list = patterns('*.agents.example.com');
    expect(admits(list, 'https://a.agents.example.com/')).toBe(true);
    expect(admits(list, 'https://a.b.agents.example.com/')).toBe(true);
    expect(admits(list, 'https://agents.example.com/')).toBe(false);
    expect(admits(list, 'https://evilagents.example.com/')).toBe(false);
    expect(admits(list, 'https://a.agents.example.com.evil.example/')).toBe(false);
  });

  it('a port in the pattern admits that port only', () => {
    const list = patterns('agents.example.com:8443');
    expect(admits(list, 'https://agents.example.com:8443/')).toBe(true);
    expect(admits(list, 'https://agents.example.com/')).toBe(false);
    expect(admits(list, 'https://agents.example.com:9443/')).toBe(false);
  });

  it('IP literals compare in their canonical form; a wildcard of an IP is refused', () => {
    const list = patterns('203.0.113.7');
    expect(admits(list, 'https://203.0.113.7/')).toBe(true);
    // The WHATWG parser reads these as 203.0.113.7: what is checked is what is connected to.
    expect(admits(list, 'https://0xcb.0.113.7/')).toBe(true);
    expect(admits(list, 'https://3405803783/')).toBe(true);
    expect(admits(list, 'https://203.0.113.8/')).toBe(false);
    expect(parseHostPattern('*.203.0.113.7')).toMatch(/a wildcard needs a domain/);
  });

  it('internationalised names compare in punycode, so a look-alike does not pass', () => {
    const list = patterns('bücher.example');
    expect(list[0]?.host).toBe('xn--bcher-kva.example');
    expect(admits(list, 'https://bücher.example/')).toBe(true);
    expect(admits(list, 'https://xn--bcher-kva.example/')).toBe(true);
    // Cyrillic "а" (U+0430) in place of Latin "a".
    expect(admits(patterns('agents.example'), 'https://\u0430gents.example/')).toBe(false);
  });

  it('refuses patterns that are not host, *.domain or either with :port, naming the rule', () => {
    expect(parseHostPattern('https://agents.example.com')).toMatch(
      /is not host, \*\.domain or either with :port/,
    );
    expect(parseHostPattern('*.com')).toMatch(/a wildcard must name a domain with at least two labels/);
    expect(parseHostPattern('agents.example.com:0')).toMatch(/port must be 1 to 65535/);
    expect(parseHostPattern('a_b.example')).toMatch(/is not a DNS name or an IPv4 address/);
    expect(parseHostPattern('user@agents.example.com')).toMatch(/is not a DNS name/);
  });
});

describe('which key a call to an agent carries', () => {
  const trust = (overrides: Partial<AgentTrust> = {}): AgentTrust => ({
    platformUrls: ['https://api.host.example/cp', 'https://data.host.example'],
    agentHosts: patterns('*.agents.example.com'),
    tenantChosenEndpoints: false,
    ...overrides,
  });
  const choose = (url: string, extra: { source?: string; ownKey?: { name: string; key: string } } = {}) =>
    chooseAgentCredential({
      url,
      source: extra.source ?? 'external_container',
      trust: trust(),
      ...(extra.ownKey ? { ownKey: extra.ownKey } : {}),
      connectionLabel: 'the default connection',
    });

  it("the connection's own addresses, a platform-assigned URL and a listed host get the connection's key", () => {
    expect(choose('https://api.host.example/agents/1')).toEqual({ kind: 'connection', tenantChosen: false });
    expect(choose('https://data.host.example:443/x')).toEqual({ kind: 'connection', tenantChosen: false });
    expect(choose('https://bot-1.us.platform.example/', { source: 'repo_host' })).toEqual({
      kind: 'connection',
      tenantChosen: false,
    });
    expect(choose('https://bot.agents.example.com/')).toEqual({ kind: 'connection', tenantChosen: false });
  });

  it('a tenant-chosen host gets no key: refused, saying where to allow it', () => {
    const choice = choose('https://attacker.example/x');
    expect(choice).toEqual({
      kind: 'refused',
      message:
        "the agent URL's host attacker.example was not assigned by the platform and is not in the operator's --agent-hosts (Helm value agentHosts); the operator sends a shared key only where the key's owner allows. Ask them to add the host there, or set spec.smokeTest.apiKeySecretRef to a key of your own",
    });
    // The same host on another port of the control plane is another service.
    expect(choose('https://api.host.example:8443/').kind).toBe('refused');
    expect(choose('http://api.host.example/').kind).toBe('refused');
  });

  it('user info before the host is refused outright, whichever key', () => {
    for (const url of [
      'https://api.host.example@attacker.example/',
      'https://bot.agents.example.com:x@attacker.example/',
      'https://user@bot.agents.example.com/',
    ]) {
      expect(choose(url).kind, url).toBe('refused');
      expect(choose(url, { ownKey: { name: 's', key: 'k' } }).kind, url).toBe('refused');
    }
    expect(choose('https://api.host.example@attacker.example/')).toMatchObject({
      message: expect.stringContaining('user info'),
    });
  });

  it("the tenant's own key is the only key sent when it gives one, wherever the agent is", () => {
    expect(choose('https://attacker.example/x', { ownKey: { name: 'mine', key: 'api-key' } })).toEqual({
      kind: 'own',
      secretName: 'mine',
      secretKey: 'api-key',
    });
  });

  it("a PlatformConnection's own addresses were chosen by its tenant: calls there obey the address policy", () => {
    const choice = chooseAgentCredential({
      url: 'http://127.0.0.1:9000/agents/1',
      source: 'external_container',
      trust: trust({ platformUrls: ['http://127.0.0.1:9000'], tenantChosenEndpoints: true }),
      connectionLabel: 'PlatformConnection team-a/eu',
    });
    expect(choice).toEqual({ kind: 'connection', tenantChosen: true });
  });
});

describe('addresses the operator connects to for a tenant', () => {
  it.each([
    ['169.254.169.254', 'link-local'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
  ])('never %s (%s)', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
    expect(addressProblem(address, { allowPrivateNetworks: true })).toMatch(/never allowed/);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.0.0.5', 'private'],
  ])('%s (%s) only with --allow-private-networks', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
    expect(addressProblem(address, { allowPrivateNetworks: false })).toMatch(/--allow-private-networks/);
    expect(addressProblem(address, { allowPrivateNetworks: true })).toBeUndefined();
  });

  it.each(['203.0.113.7', '8.8.8.8', '2001:db8::1', '172.32.0.1'])('%s is public', (address) => {
    expect(addressProblem(address, { allowPrivateNetworks: false })).toBeUndefined();
  });

  it('reads URL hosts as the parser does: localhost, decimal and hex IPv4, bracketed IPv6', () => {
    const closed = { allowPrivateNetworks: false };
    expect(urlAddressProblem(new URL('http://localhost:8080/'), closed)).toMatch(/loopback/);
    expect(urlAddressProblem(new URL('http://2852039166/'), closed)).toMatch(
      /169.254.169.254 is a link-local/,
    );
    expect(urlAddressProblem(new URL('http://0xa9.0xfe.0xa9.0xfe/'), closed)).toMatch(/link-local/);
    expect(urlAddressProblem(new URL('http://[::ffff:169.254.169.254]/'), closed)).toMatch(/link-local/);
    expect(urlAddressProblem(new URL('https://agents.example.com/'), closed)).toBeUndefined();
  });
});
