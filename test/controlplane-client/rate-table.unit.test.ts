import { describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/controlplane/budget/rate-budget.js';
import { RATE_TABLE, type IdentityKey } from '../../src/controlplane/budget/rate-table.js';
import { matchingRows, pathMatches } from '../../src/controlplane/budget/route-matcher.js';

const withKey = new Set<IdentityKey>(['api-key', 'ip']);
const rowsFor = (method: string, path: string, identities: ReadonlySet<IdentityKey> = withKey) =>
  matchingRows({ method, path, identities }, RATE_TABLE).map((row) => row.id);
const UUID = '0b9e7c1e-8f4a-4a57-9d55-6f0f6f1f2a3b';

describe('rate table matching', () => {
  it('puts every control-plane route on the default API-key row only', () => {
    for (const [method, path] of [
      ['POST', '/v2/deployments'],
      ['GET', `/v2/deployments/${UUID}`],
      ['PATCH', `/v2/deployments/${UUID}`],
      ['DELETE', `/v2/deployments/${UUID}`],
      ['GET', `/v2/deployments/${UUID}/revisions/${UUID}`],
      ['GET', '/v2/listeners'],
      ['GET', '/v1/integrations/repo_host/install'],
      ['GET', '/prefix/v2/deployments'],
    ] as const) {
      expect(rowsFor(method, path), `${method} ${path}`).toEqual(['default-api-key']);
    }
  });

  it('matches whole path segments, so /repos does not match repo_host', () => {
    expect(pathMatches('/v1/integrations/repo_host/install', { kind: 'contains', segments: '/repos' })).toBe(
      false,
    );
    expect(rowsFor('GET', '/api/v1/repos/owner/name')).toEqual(['repos-api-key']);
  });

  it('uses specific rows instead of the default, and every specific row that matches', () => {
    expect(rowsFor('POST', '/api/v1/runs/query')).toEqual(['runs-query-api-key']);
    expect(rowsFor('POST', '/api/v1/runs/multipart')).toEqual(['runs-multipart-api-key']);
    expect(rowsFor('GET', `/api/v1/runs/${UUID}`)).toEqual(['run-lookup-api-key']);
    expect(rowsFor('PATCH', `/api/v1/runs/${UUID}`)).toEqual(['run-patch-api-key']);
    expect(rowsFor('DELETE', '/api/v1/sessions/x')).toEqual(['deletion-api-key']);
    expect(rowsFor('POST', '/api/v1/rules/x/trigger')).toEqual(['deletion-api-key']);
    expect(rowsFor('GET', '/api/v1/runs/stats')).toEqual(['stats-api-key']);
    // An IP row and the key's default count the same request: different identities.
    expect(rowsFor('GET', '/info')).toEqual(['high-throughput-ip', 'default-api-key']);
  });

  it('applies the IP catch-all only to requests without a credential', () => {
    expect(rowsFor('GET', '/something', new Set<IdentityKey>(['ip']))).toEqual(['public-catch-all-ip']);
    expect(rowsFor('GET', '/something')).toEqual(['default-api-key']);
  });

  it('reads the region column (commits: 10000/60 in the US, 2000/60 in the EU)', () => {
    const request = { method: 'GET', path: '/api/v1/commits/x', credentialFingerprint: 'f' };
    expect(new RateBudget({ region: 'us' }).report(request)[0]?.limit).toEqual({
      count: 10000,
      windowSeconds: 60,
    });
    expect(new RateBudget({ region: 'eu' }).report(request)[0]?.limit).toEqual({
      count: 2000,
      windowSeconds: 60,
    });
  });

  it('lets configuration replace the default row or any row by id, and rejects unknown ids and bad limits', () => {
    const request = { method: 'GET', path: '/v2/listeners', credentialFingerprint: 'f' };
    const budget = new RateBudget({ overrides: { default: { count: 100, windowSeconds: 10 } } });
    expect(budget.report(request)[0]).toMatchObject({
      rowId: 'default-api-key',
      limit: { count: 100, windowSeconds: 10 },
    });
    const byId = new RateBudget({
      overrides: { rows: { 'default-api-key': { count: 7, windowSeconds: 1 } } },
    });
    expect(byId.report(request)[0]?.limit).toEqual({ count: 7, windowSeconds: 1 });
    expect(() => new RateBudget({ overrides: { rows: { nope: { count: 1, windowSeconds: 1 } } } })).toThrow(
      /unknown row id "nope"/,
    );
    expect(() => new RateBudget({ overrides: { default: { count: 0, windowSeconds: 1 } } })).toThrow(
      /rateLimits.default.count must be a positive integer/,
    );
    expect(() => new RateBudget({ overrides: { default: { count: 5, windowSeconds: 0 } } })).toThrow(
      /windowSeconds must be a positive number/,
    );
  });

  it('keeps separate buckets per credential fingerprint', () => {
    const budget = new RateBudget({ overrides: { default: { count: 1, windowSeconds: 10 } } });
    const a = { method: 'GET', path: '/v2/listeners', credentialFingerprint: 'a' };
    expect(budget.reserve(a).ok).toBe(true);
    expect(budget.reserve(a).ok).toBe(false);
    expect(budget.reserve({ ...a, credentialFingerprint: 'b' }).ok).toBe(true);
  });
});
