// The connection registry: which object may use which connection, one budget per credential
// and address, the region's rate rows, key rotation without restart, the default connection,
// and no credential in any message. Real HTTP against the control-plane emulator where the
// key's effect matters.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/controlplane/budget/rate-budget.js';
import { ControlPlaneClient } from '../../src/controlplane/client/index.js';
import { ControlPlaneClientPool, budgetIdOf } from '../../src/connections/client-pool.js';
import { ConnectionRegistry, type ResolvedConnection } from '../../src/connections/registry.js';
import {
  connectionIndexValues,
  resolveObjectConnection,
} from '../../src/connections/agentdeployment-connection.js';
import { startControlPlaneEmulator, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';
import { resolveCredentials } from '../../src/connections/credentials.js';
import type { SecretSource } from '../../src/reconcilers/agentdeployment/secrets.js';
import { connection, MapLookup, secret } from './support/objects.js';

const KEY_A = 'registry-key-aaaaaaaaaaaa';
const KEY_B = 'registry-key-bbbbbbbbbbbb';
const DEFAULT_KEY = 'registry-default-key-0000';
const OPERATOR_NAMESPACE = 'agent-operator-system';
const apiKey = { apiKeySecretRef: { name: 'platform-key', key: 'apiKey' } };

let emulator: ControlPlaneEmulator;
let pool: ControlPlaneClientPool;
let lookup: MapLookup;
let registry: ConnectionRegistry;
let defaultClient: ControlPlaneClient;

function selfHosted(url = emulator.url) {
  return { controlPlaneUrl: url, platformApiUrl: url, ...apiKey };
}

function resolved(result: ReturnType<ConnectionRegistry['resolve']>): ResolvedConnection {
  if (!result.ok) throw new Error(`expected a connection, got ${result.reason}: ${result.message}`);
  return result;
}

beforeEach(async () => {
  emulator = await startControlPlaneEmulator({
    apiKeys: [{ key: KEY_A }, { key: KEY_B }, { key: DEFAULT_KEY }],
  });
  pool = new ControlPlaneClientPool();
  lookup = new MapLookup();
  defaultClient = new ControlPlaneClient({ baseUrl: emulator.url, credentials: { apiKey: DEFAULT_KEY } });
  registry = new ConnectionRegistry({
    lookup,
    pool,
    operatorNamespace: OPERATOR_NAMESPACE,
    defaultConnection: {
      client: defaultClient,
      budgetId: 'default',
      controlPlaneId: 'default',
      credentials: { apiKey: DEFAULT_KEY },
      agentTrust: { platformUrls: [emulator.url], agentHosts: [], tenantChosenEndpoints: false },
    },
    defaultDataDeletionNamespaces: [],
  });
});

afterEach(async () => {
  await pool.close();
  await defaultClient.close();
  await emulator.close();
});

describe('namespace isolation', () => {
  it('a PlatformConnection serves its own namespace and is not found from another', async () => {
    lookup.add(connection('PlatformConnection', 'team-a', 'eu', selfHosted()));
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    const own = resolved(registry.resolve({ kind: 'PlatformConnection', name: 'eu' }, 'team-a'));
    expect(own.label).toBe('PlatformConnection team-a/eu');
    expect((await own.client.listListeners({ limit: 1 })).ok).toBe(true);

    const other = registry.resolve({ kind: 'PlatformConnection', name: 'eu' }, 'team-b');
    expect(other).toMatchObject({ ok: false, reason: 'ConnectionNotFound' });
    expect(other.ok ? '' : other.message).toContain('PlatformConnection team-b/eu not found');
  });

  it('a PlatformConnection object from another namespace is refused even when handed over', () => {
    const foreign = connection('PlatformConnection', 'team-a', 'eu', selfHosted());
    expect(registry.accessProblem(foreign, 'team-b')).toBe('serves only namespace team-a, not team-b');
  });

  it('a ClusterPlatformConnection honours its namespaceSelector', () => {
    lookup.add(
      connection('ClusterPlatformConnection', undefined, 'shared', {
        ...selfHosted(),
        namespaceSelector: {
          matchExpressions: [{ key: 'team', operator: 'In', values: ['payments', 'research'] }],
        },
      }),
    );
    lookup.secrets.set(`${OPERATOR_NAMESPACE}/platform-key`, secret(KEY_A));
    lookup.namespaces.set('payments', { team: 'payments' });
    lookup.namespaces.set('marketing', { team: 'marketing' });
    const ref = { kind: 'ClusterPlatformConnection', name: 'shared' } as const;
    expect(registry.resolve(ref, 'payments').ok).toBe(true);
    expect(registry.resolve(ref, 'marketing')).toMatchObject({
      ok: false,
      reason: 'ConnectionNotAllowed',
      message: 'ClusterPlatformConnection shared: its namespaceSelector does not match namespace marketing',
    });
  });

  it('a ClusterPlatformConnection without namespaceSelector serves no namespace (fail closed)', () => {
    lookup.add(connection('ClusterPlatformConnection', undefined, 'unscoped', selfHosted()));
    lookup.secrets.set(`${OPERATOR_NAMESPACE}/platform-key`, secret(KEY_A));
    expect(registry.resolve({ kind: 'ClusterPlatformConnection', name: 'unscoped' }, 'team-a')).toEqual({
      ok: false,
      reason: 'ConnectionNotAllowed',
      message:
        'ClusterPlatformConnection unscoped: it has no namespaceSelector, so it serves no namespace ({} serves all)',
    });
  });

  it("a ClusterPlatformConnection with namespaceSelector {} serves every namespace, its key read from the operator's namespace", () => {
    lookup.add(
      connection('ClusterPlatformConnection', undefined, 'all', { ...selfHosted(), namespaceSelector: {} }),
    );
    lookup.namespaces.set('team-a', {});
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    const missing = registry.resolve({ kind: 'ClusterPlatformConnection', name: 'all' }, 'team-a');
    expect(missing).toMatchObject({ ok: false, reason: 'ConnectionNotReady' });
    expect(missing.ok ? '' : missing.message).toContain(
      `Secret "${OPERATOR_NAMESPACE}/platform-key" not found`,
    );
    lookup.secrets.set(`${OPERATOR_NAMESPACE}/platform-key`, secret(KEY_A));
    expect(registry.resolve({ kind: 'ClusterPlatformConnection', name: 'all' }, 'team-a').ok).toBe(true);
  });

  it('a connection whose Ready condition is False is refused as not Ready, with its reason', () => {
    lookup.add(connection('PlatformConnection', 'team-a', 'broken', selfHosted(), false));
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    expect(registry.resolve({ kind: 'PlatformConnection', name: 'broken' }, 'team-a')).toMatchObject({
      ok: false,
      reason: 'ConnectionNotReady',
      message:
        'PlatformConnection team-a/broken is not Ready: the control plane refuses the credential (HTTP 401)',
    });
  });
});

describe('who may delete data through a connection', () => {
  const DELETING = { forDataDeletion: true };
  const ok = (resolution: ReturnType<ConnectionRegistry['resolve']>) => {
    if (!resolution.ok) throw new Error(resolution.message);
    return resolution;
  };

  it("the default connection: only the namespaces --data-deletion-namespaces names (here none); 'all' lets every one", () => {
    expect(ok(registry.resolve(undefined, 'team-a', DELETING)).dataDeletionRefusal).toBe(
      "the default connection: namespace team-a may not delete data through it (the operator's --data-deletion-namespaces, Helm value dataDeletionNamespaces, allows none)",
    );
    const open = new ConnectionRegistry({
      lookup,
      pool,
      operatorNamespace: OPERATOR_NAMESPACE,
      defaultConnection: registry.defaultConnection(),
      defaultDataDeletionNamespaces: 'all',
    });
    expect(ok(open.resolve(undefined, 'team-a', DELETING)).dataDeletionRefusal).toBeUndefined();
    const listed = new ConnectionRegistry({
      lookup,
      pool,
      operatorNamespace: OPERATOR_NAMESPACE,
      defaultConnection: registry.defaultConnection(),
      defaultDataDeletionNamespaces: ['privacy'],
    });
    expect(ok(listed.resolve(undefined, 'privacy', DELETING)).dataDeletionRefusal).toBeUndefined();
    expect(ok(listed.resolve(undefined, 'team-a', DELETING)).dataDeletionRefusal).toContain('allows privacy');
  });

  it("a PlatformConnection's own namespace may delete through it (its key is that namespace's own)", () => {
    lookup.add(connection('PlatformConnection', 'team-a', 'own', selfHosted()));
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    expect(
      ok(registry.resolve({ kind: 'PlatformConnection', name: 'own' }, 'team-a', DELETING))
        .dataDeletionRefusal,
    ).toBeUndefined();
  });

  it('a ClusterPlatformConnection: none without dataDeletionNamespaceSelector, then the namespaces it matches', () => {
    lookup.namespaces.set('privacy', { purpose: 'privacy' });
    lookup.namespaces.set('team-a', { team: 'a' });
    lookup.secrets.set(`${OPERATOR_NAMESPACE}/platform-key`, secret(KEY_A));
    lookup.add(
      connection('ClusterPlatformConnection', undefined, 'shared', {
        ...selfHosted(),
        namespaceSelector: {},
      }),
    );
    const ref = { kind: 'ClusterPlatformConnection', name: 'shared' } as const;
    expect(ok(registry.resolve(ref, 'team-a', DELETING)).dataDeletionRefusal).toBe(
      'ClusterPlatformConnection shared: namespace team-a may not delete data through it: it has no dataDeletionNamespaceSelector (absent allows none; {} allows every namespace its namespaceSelector serves)',
    );
    lookup.add(
      connection('ClusterPlatformConnection', undefined, 'shared', {
        ...selfHosted(),
        namespaceSelector: {},
        dataDeletionNamespaceSelector: { matchLabels: { purpose: 'privacy' } },
      }),
    );
    expect(ok(registry.resolve(ref, 'privacy', DELETING)).dataDeletionRefusal).toBeUndefined();
    expect(ok(registry.resolve(ref, 'team-a', DELETING)).dataDeletionRefusal).toBe(
      'ClusterPlatformConnection shared: its dataDeletionNamespaceSelector does not match namespace team-a',
    );
  });
});

describe('budgets', () => {
  it('two connections with the same key and address share one client and one budget; another key has its own', () => {
    lookup.add(connection('PlatformConnection', 'team-a', 'one', selfHosted()));
    lookup.add(connection('PlatformConnection', 'team-b', 'two', selfHosted()));
    lookup.add(connection('PlatformConnection', 'team-c', 'three', selfHosted()));
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    lookup.secrets.set('team-b/platform-key', secret(KEY_A));
    lookup.secrets.set('team-c/platform-key', secret(KEY_B));
    const one = resolved(registry.resolve({ kind: 'PlatformConnection', name: 'one' }, 'team-a'));
    const two = resolved(registry.resolve({ kind: 'PlatformConnection', name: 'two' }, 'team-b'));
    const three = resolved(registry.resolve({ kind: 'PlatformConnection', name: 'three' }, 'team-c'));
    expect(two.client).toBe(one.client);
    expect(two.client.budget).toBe(one.client.budget);
    expect(three.client.budget).not.toBe(one.client.budget);
    expect(one.budgetId).not.toContain(KEY_A);
    // What calls outside the client (the smoke test's) send: the connection's own key.
    expect([one.credentials, three.credentials]).toEqual([{ apiKey: KEY_A }, { apiKey: KEY_B }]);
    expect(registry.resolve(undefined, 'team-a')).toMatchObject({ credentials: { apiKey: DEFAULT_KEY } });
    expect(registry.sharing(lookup.connection('PlatformConnection', 'team-a', 'one')!)).toEqual([
      'PlatformConnection team-b/two',
    ]);
  });

  it("each connection's region picks its rate rows (stats: 1/10 s in the US, 20/10 s in the EU)", () => {
    lookup.add(connection('PlatformConnection', 'team-a', 'us', { region: 'us', ...apiKey }));
    lookup.add(connection('PlatformConnection', 'team-a', 'eu', { region: 'eu', ...apiKey }));
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    const us = resolved(registry.resolve({ kind: 'PlatformConnection', name: 'us' }, 'team-a'));
    const eu = resolved(registry.resolve({ kind: 'PlatformConnection', name: 'eu' }, 'team-a'));
    expect(us.client.budget).not.toBe(eu.client.budget);
    const stats = { method: 'GET', path: '/api/v1/runs/stats', credentialFingerprint: 'f' };
    const limit = (budget: RateBudget) =>
      budget.report(stats).find((r) => r.rowId === 'stats-api-key')?.limit;
    expect(limit(us.client.budget)).toEqual({ count: 1, windowSeconds: 10 });
    expect(limit(eu.client.budget)).toEqual({ count: 20, windowSeconds: 10 });
    expect(us.client.endpoint.origin).toBe('https://api.host.langchain.com');
    expect(eu.client.endpoint.origin).toBe('https://eu.api.host.langchain.com');
  });

  it("a connection with the default connection's key and address spends the default's budget", () => {
    const budget = new RateBudget();
    pool.adoptBudget(defaultClient.credentialFingerprint, emulator.url, budget);
    lookup.add(connection('PlatformConnection', 'team-a', 'same', selfHosted()));
    lookup.secrets.set('team-a/platform-key', secret(DEFAULT_KEY));
    const same = resolved(registry.resolve({ kind: 'PlatformConnection', name: 'same' }, 'team-a'));
    expect(same.client.budget).toBe(budget);
    expect(same.budgetId).toBe(budgetIdOf(defaultClient.credentialFingerprint, emulator.url));
    budget.close();
  });

  it('the rateLimits override sets the default row of a self-hosted connection', () => {
    lookup.add(
      connection('PlatformConnection', 'team-a', 'slow', {
        ...selfHosted(),
        rateLimits: { default: { count: 5, windowSeconds: 10 } },
      }),
    );
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    const slow = resolved(registry.resolve({ kind: 'PlatformConnection', name: 'slow' }, 'team-a'));
    const report = slow.client.budget.report({
      method: 'GET',
      path: '/v2/deployments',
      credentialFingerprint: 'f',
    });
    expect(report.find((r) => r.rowId === 'default-api-key')?.limit).toEqual({ count: 5, windowSeconds: 10 });
  });
});

describe('the default connection', () => {
  it('an object without connectionRef gets the client built from the flags', async () => {
    const result = resolved(registry.resolve(undefined, 'team-a'));
    expect(result).toMatchObject({ kind: 'Default', label: 'the default connection' });
    expect(result.client).toBe(defaultClient);
    expect((await result.client.listListeners({ limit: 1 })).ok).toBe(true);
  });
});

describe('key rotation', () => {
  it('a new key in the Secret is used at the next resolve, without restart; an unchanged key keeps its budget', async () => {
    lookup.add(connection('PlatformConnection', 'team-a', 'rotating', selfHosted()));
    lookup.secrets.set('team-a/platform-key', secret('a-revoked-key-123456'));
    const ref = { kind: 'PlatformConnection', name: 'rotating' } as const;
    const before = resolved(registry.resolve(ref, 'team-a'));
    const refused = await before.client.listListeners({ limit: 1 });
    expect(refused.ok ? 0 : refused.error.kind).toBe('Terminal');

    lookup.secrets.set('team-a/platform-key', secret(KEY_A, '2'));
    const after = resolved(registry.resolve(ref, 'team-a'));
    expect(after.client).not.toBe(before.client);
    expect((await after.client.listListeners({ limit: 1 })).ok).toBe(true);

    lookup.secrets.set('team-a/platform-key', secret(KEY_A, '3'));
    const rewritten = resolved(registry.resolve(ref, 'team-a'));
    expect(rewritten.client).toBe(after.client);
    expect(rewritten.client.budget).toBe(after.client.budget);
  });
});

describe('credential resolution', () => {
  it('is kept per Secret object and per reference: each key and tenant of one Secret is its own', () => {
    const shared: SecretSource = {
      metadata: { resourceVersion: '1' },
      data: { a: Buffer.from(KEY_A).toString('base64'), b: Buffer.from(KEY_B).toString('base64') },
    };
    const lookupShared = (namespace: string, name: string) =>
      namespace === 'team-a' && name === 'platform-key' ? shared : undefined;
    const byKey = (key: string, tenantId?: string) => ({
      ...selfHosted(),
      apiKeySecretRef: { name: 'platform-key', key },
      ...(tenantId === undefined ? {} : { tenantId }),
    });
    const first = resolveCredentials(byKey('a'), 'team-a', lookupShared);
    expect(resolveCredentials(byKey('a'), 'team-a', lookupShared)).toBe(first);
    expect(first).toMatchObject({ ok: true, credentials: { apiKey: KEY_A } });
    expect(resolveCredentials(byKey('b'), 'team-a', lookupShared)).toMatchObject({
      ok: true,
      credentials: { apiKey: KEY_B },
    });
    const tenant = '11111111-1111-4111-8111-111111111111';
    expect(resolveCredentials(byKey('a', tenant), 'team-a', lookupShared)).toMatchObject({
      ok: true,
      credentials: { apiKey: KEY_A, tenantId: tenant },
    });
    expect(resolveCredentials(byKey('missing'), 'team-a', lookupShared)).toMatchObject({ ok: false });
    // A changed Secret is a new object in the cache: read afresh.
    const rotated = { ...shared, data: { a: Buffer.from(KEY_B).toString('base64') } };
    expect(resolveCredentials(byKey('a'), 'team-a', () => rotated)).toMatchObject({
      ok: true,
      credentials: { apiKey: KEY_B },
    });
    expect(Object.isFrozen(first.ok ? first.credentials : undefined)).toBe(true);
  });
});

describe('secrecy', () => {
  it('no refusal message carries the key or a fragment of it', () => {
    lookup.add(
      connection('PlatformConnection', 'team-a', 'x', {
        ...selfHosted(),
        apiKeySecretRef: { name: 'platform-key', key: 'other' },
      }),
    );
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    const result = registry.resolve({ kind: 'PlatformConnection', name: 'x' }, 'team-a');
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('has no key "other"') });
    const text = JSON.stringify(result);
    for (let i = 0; i + 8 <= KEY_A.length; i += 1) expect(text).not.toContain(KEY_A.slice(i, i + 8));
  });
});

describe('the AgentDeployment side', () => {
  it("resolves an object's connectionRef in its own namespace; a malformed one reads as absent", () => {
    lookup.add(connection('PlatformConnection', 'team-a', 'eu', selfHosted()));
    lookup.secrets.set('team-a/platform-key', secret(KEY_A));
    const user = (connectionRef: unknown) => ({
      metadata: { namespace: 'team-a', name: 'agent' },
      spec: { source: 'internal_container', connectionRef },
    });
    expect(resolveObjectConnection(registry, user({ kind: 'PlatformConnection', name: 'eu' }))).toMatchObject(
      {
        ok: true,
        label: 'PlatformConnection team-a/eu',
      },
    );
    expect(connectionIndexValues(user({ kind: 'PlatformConnection', name: 'eu' }))).toEqual([
      'PlatformConnection/team-a/eu',
    ]);
    expect(connectionIndexValues(user({ kind: 'ClusterPlatformConnection', name: 'eu' }))).toEqual([
      'ClusterPlatformConnection//eu',
    ]);
    expect(connectionIndexValues(user({ kind: 'Secret', name: 'eu' }))).toEqual([]);
    expect(resolveObjectConnection(registry, user(undefined))).toMatchObject({ ok: true, kind: 'Default' });
  });

  it('reads a frozen reference (a cached object) the same each time, valid or not', () => {
    const frozenUser = (connectionRef: object) => ({
      metadata: { namespace: 'team-a', name: 'agent' },
      spec: { source: 'internal_container', connectionRef: Object.freeze(connectionRef) },
    });
    const good = frozenUser({ kind: 'ClusterPlatformConnection', name: 'eu' });
    const bad = frozenUser({ kind: 'Secret', name: 'eu' });
    for (let pass = 0; pass < 2; pass += 1) {
      expect(connectionIndexValues(good)).toEqual(['ClusterPlatformConnection//eu']);
      expect(connectionIndexValues(bad)).toEqual([]);
    }
  });
});
