// Which published row paces each platform data call the deletion CRs make, so that one budget
// per credential holds them with the control-plane calls (which all fall on the default row).
import { describe, expect, it } from 'vitest';
import { RATE_TABLE } from '../../src/controlplane/budget/rate-table.js';
import { matchingRows } from '../../src/controlplane/budget/route-matcher.js';
import { PLATFORM_ROUTES } from '../../src/platformdata/routes.js';

const identities = new Set(['api-key', 'ip'] as const);
const rowsOf = (method: string, path: string): string[] =>
  matchingRows({ method, path, identities }, RATE_TABLE).map((row) => row.id);

describe('platform data routes in the rate table', () => {
  it('puts each call on its row', () => {
    expect(rowsOf('POST', PLATFORM_ROUTES.traceDelete)).toEqual(['default-api-key']);
    expect(rowsOf('POST', PLATFORM_ROUTES.exampleDelete)).toEqual(['default-api-key']);
    expect(rowsOf('POST', PLATFORM_ROUTES.runQuery)).toEqual(['runs-query-api-key']);
    expect(rowsOf('GET', PLATFORM_ROUTES.examples)).toEqual(['examples-api-key']);
    expect(rowsOf('GET', `/api/v1/runs/${crypto.randomUUID()}`)).toEqual(['run-lookup-api-key']);
    // The control plane shares the trace delete's row: one window for rollouts and deletions.
    expect(rowsOf('PATCH', `/v2/deployments/${crypto.randomUUID()}`)).toEqual(['default-api-key']);
  });

  it('gives those rows the published limits in both regions', () => {
    const limits = (id: string) => {
      const row = RATE_TABLE.find((r) => r.id === id);
      return [row?.us, row?.eu];
    };
    expect(limits('runs-query-api-key')).toEqual([
      { count: 15, windowSeconds: 10 },
      { count: 15, windowSeconds: 10 },
    ]);
    expect(limits('examples-api-key')).toEqual([
      { count: 5000, windowSeconds: 60 },
      { count: 5000, windowSeconds: 60 },
    ]);
    expect(limits('default-api-key')).toEqual([
      { count: 1000, windowSeconds: 10 },
      { count: 1000, windowSeconds: 10 },
    ]);
  });
});
