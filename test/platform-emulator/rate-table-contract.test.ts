// Every row of the published rate table, on the wire: the row's count of requests passes the
// limiter, the next one is 429 naming the row's category. The limiter runs before routing, so
// rows of routes the emulator does not otherwise serve count too (those answer 404/405 while
// under the limit), and a caller with only x-user-id is counted on the user+IP rows (then 401).
// The rows are transcribed here from the spec on their own, not read from the emulator's copy.
import { Langsmith, RateLimitError } from 'langsmith';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import type { EmulatorClient } from '../controlplane-emulator/helpers.js';
import { ingestTrace, KEY, ManualClock, sessionId, startPlatform } from './helpers.js';

type Who = 'api-key' | 'user-id+ip' | 'ip';

interface Row {
  category: string;
  who: Who;
  us: number;
  eu: number;
  /** The requests of the row, taken in turn (a row with several alternatives tries each). */
  requests: { method: string; path: string }[];
  /** What the route answers under the limit (the emulator's route, or 404/405 when it serves none). */
  under: number[];
}

const UUID = '0b0b0b0b-0000-4000-8000-000000000001';
const USER = 'user-7';

/** The spec's table, top to bottom (29 rows). */
const ROWS: Row[] = [
  {
    category: 'High throughput', who: 'ip', us: 2000, eu: 2000, under: [200, 404, 405],
    requests: [
      { method: 'OPTIONS', path: '/api/v1/sessions' },
      { method: 'GET', path: '/info' },
      { method: 'POST', path: '/api/v1/v1/metadata/submit' },
    ],
  },
  { category: 'High throughput', who: 'api-key', us: 2000, eu: 2000, under: [404], requests: [{ method: 'GET', path: '/auth/verify' }] },
  { category: 'High throughput', who: 'user-id+ip', us: 2000, eu: 2000, under: [404], requests: [{ method: 'POST', path: '/api/v1/auth/login' }] },
  { category: 'High throughput', who: 'ip', us: 2000, eu: 2000, under: [404], requests: [{ method: 'POST', path: '/v1/beacon' }] },
  { category: 'Repository', who: 'api-key', us: 100, eu: 100, under: [404], requests: [{ method: 'GET', path: '/repos/me/prompt' }] },
  { category: 'Repository', who: 'user-id+ip', us: 100, eu: 100, under: [404], requests: [{ method: 'GET', path: '/api/v1/repos' }] },
  { category: 'High throughput', who: 'api-key', us: 2000, eu: 2000, under: [422], requests: [{ method: 'POST', path: '/runs/batch' }] },
  { category: 'Run ingest', who: 'api-key', us: 2000, eu: 2000, under: [404], requests: [{ method: 'POST', path: '/otel/v1/traces' }] },
  { category: 'Charts', who: 'api-key', us: 750, eu: 750, under: [404], requests: [{ method: 'POST', path: '/api/v1/charts/section' }] },
  { category: 'Charts', who: 'user-id+ip', us: 750, eu: 750, under: [404], requests: [{ method: 'POST', path: '/charts' }] },
  { category: 'Multipart ingest', who: 'api-key', us: 6000, eu: 6000, under: [422], requests: [{ method: 'POST', path: '/runs/multipart' }] },
  { category: 'Run query (API)', who: 'api-key', us: 15, eu: 15, under: [422], requests: [{ method: 'POST', path: '/api/v1/runs/query' }] },
  { category: 'Run query (User)', who: 'user-id+ip', us: 300, eu: 300, under: [401], requests: [{ method: 'POST', path: '/api/v1/runs/query' }] },
  { category: 'Generation', who: 'api-key', us: 30, eu: 30, under: [404], requests: [{ method: 'POST', path: '/generate' }] },
  { category: 'Generation', who: 'user-id+ip', us: 30, eu: 30, under: [404], requests: [{ method: 'POST', path: '/api/v1/generate/prompt' }] },
  { category: 'Commits', who: 'api-key', us: 10000, eu: 2000, under: [404], requests: [{ method: 'GET', path: '/commits/me/prompt/latest' }] },
  { category: 'Commits', who: 'user-id+ip', us: 10000, eu: 2000, under: [404], requests: [{ method: 'POST', path: '/api/v1/commits/me/prompt' }] },
  {
    category: 'Deletion', who: 'api-key', us: 10, eu: 10, under: [404, 405],
    requests: [
      { method: 'DELETE', path: `/sessions/${UUID}` },
      { method: 'POST', path: '/api/v1/runs/rules/some-rule/trigger' },
    ],
  },
  {
    category: 'Deletion', who: 'user-id+ip', us: 30, eu: 30, under: [404, 405],
    requests: [
      { method: 'DELETE', path: `/api/v1/sessions/${UUID}` },
      { method: 'POST', path: '/api/v1/runs/rules/some-rule/trigger' },
    ],
  },
  { category: 'Run ingest', who: 'api-key', us: 2000, eu: 2000, under: [422], requests: [{ method: 'POST', path: '/runs' }] },
  { category: 'Run ingest', who: 'api-key', us: 2000, eu: 2000, under: [404, 422], requests: [{ method: 'PATCH', path: `/api/v1/runs/${UUID}` }] },
  { category: 'High throughput', who: 'api-key', us: 2000, eu: 2000, under: [404], requests: [{ method: 'POST', path: '/feedback' }] },
  {
    category: 'Run lookup', who: 'api-key', us: 30, eu: 30, under: [404],
    requests: [
      { method: 'GET', path: `/runs/${UUID}` },
      { method: 'GET', path: `/api/v1/runs/${UUID}` },
    ],
  },
  { category: 'Examples', who: 'api-key', us: 5000, eu: 5000, under: [422], requests: [{ method: 'GET', path: '/api/v1/examples' }] },
  { category: 'Default (API key)', who: 'api-key', us: 1000, eu: 1000, under: [200], requests: [{ method: 'GET', path: '/api/v1/datasets' }] },
  { category: 'Default (User)', who: 'user-id+ip', us: 1000, eu: 1000, under: [401], requests: [{ method: 'GET', path: '/api/v1/datasets' }] },
  { category: 'Public download', who: 'ip', us: 5000, eu: 5000, under: [404], requests: [{ method: 'GET', path: '/public/download/some-file' }] },
  { category: 'Stats', who: 'api-key', us: 1, eu: 20, under: [405], requests: [{ method: 'POST', path: '/api/v1/runs/stats' }] },
  { category: 'Public (catch-all)', who: 'ip', us: 100, eu: 100, under: [401], requests: [{ method: 'GET', path: '/api/v1/datasets' }] },
];

const HOUR = 3_600_000;
// Many short requests: one keep-alive pool with room for the bursts.
const dispatcher = new Agent({ connections: 32, pipelining: 1 });
afterAll(() => dispatcher.close());

function headersOf(who: Who): Record<string, string> {
  if (who === 'api-key') return { 'x-api-key': KEY };
  if (who === 'user-id+ip') return { 'x-user-id': USER };
  return {};
}

async function send(api: EmulatorClient, row: Row, index: number): Promise<{ status: number; detail: string }> {
  const request = row.requests[index % row.requests.length] as Row['requests'][number];
  const response = await undiciFetch(`${api.url}${request.path}`, {
    method: request.method,
    headers: headersOf(row.who),
    dispatcher,
  });
  const text = await response.text();
  const detail = response.status === 429 ? String((JSON.parse(text) as { detail: unknown }).detail) : '';
  return { status: response.status, detail };
}

/** The statuses of `count` requests of the row, 32 at a time. */
async function statusesOf(api: EmulatorClient, row: Row, count: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  for (let start = 0; start < count; start += 32) {
    const batch = Array.from({ length: Math.min(32, count - start) }, (_, i) => send(api, row, start + i));
    for (const { status } of await Promise.all(batch)) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  return statuses;
}

function exercise(region: 'us' | 'eu', rows: readonly Row[]): void {
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  let api: EmulatorClient;
  beforeAll(async () => {
    api = await startPlatform({
      clock: clock.now,
      platformRegion: region,
      // The default API-key row is the control plane's limiter: the published 1000 / 10 s.
      rateLimit: { count: 1000, windowSeconds: 10 },
    });
  });

  it.each(rows.map((row) => [`${row.category} (${row.who}): ${row[region]}`, row] as const))(
    '%s',
    async (_name, row) => {
      // A fresh window of every row: two hours on from the last test (the longest window is one).
      clock.advance(2 * HOUR);
      const count = row[region];
      const statuses = await statusesOf(api, row, count);
      expect(statuses.get(429)).toBeUndefined();
      expect([...statuses.keys()].every((status) => row.under.includes(status))).toBe(true);
      const refused = await send(api, row, count);
      expect(refused.status).toBe(429);
      expect(refused.detail).toContain(`${row.category}:`);
    },
    120_000,
  );
}

describe('the published rate table, US column', () => {
  exercise('us', ROWS);
});

describe('the published rate table, EU column (where it differs)', () => {
  exercise(
    'eu',
    ROWS.filter((row) => row.us !== row.eu),
  );
});

describe('the official SDK meets the rows', () => {
  const clock = new ManualClock(Date.UTC(2031, 0, 1));
  let api: EmulatorClient;
  let sdk: Langsmith;
  beforeAll(async () => {
    api = await startPlatform({ clock: clock.now, rateLimit: { count: 1000, windowSeconds: 10 } });
    // Retries off: the SDK would otherwise retry the 429 with real backoff against a stopped clock.
    sdk = new Langsmith({ apiKey: KEY, baseURL: api.url, maxRetries: 0 });
  });

  it('runs.retrieve: 30 lookups per 60 s, then its RateLimitError', async () => {
    const run = await ingestTrace(api, 'rates');
    const project = await sessionId(api, 'rates');
    clock.advance(2 * HOUR);
    for (let i = 0; i < 30; i += 1) expect((await sdk.runs.retrieve(run, { project_id: project })).id).toBe(run);
    await expect(sdk.runs.retrieve(run, { project_id: project })).rejects.toBeInstanceOf(RateLimitError);
  });

  it('sessions.delete (not served here): 10 per 60 s answer 405, the 11th its RateLimitError', async () => {
    clock.advance(2 * HOUR);
    for (let i = 0; i < 10; i += 1) await expect(sdk.sessions.delete(UUID)).rejects.toMatchObject({ status: 405 });
    await expect(sdk.sessions.delete(UUID)).rejects.toBeInstanceOf(RateLimitError);
  });
});
