// The platform data client against the emulator: one budget with the control-plane client,
// a 429 storm mid-submission, verification that finds survivors, metadata deletion, example
// search and soft/hard delete, local refusals, abort, and no API key in any output.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import { matchingExampleIds, submitExampleDeletion } from '../../src/platformdata/example-deletion.js';
import { PlatformDataClient } from '../../src/platformdata/platform-data-client.js';
import { submitTraceDeletion } from '../../src/platformdata/trace-deletion.js';
import { findSurvivingTraces, findTracesByMetadata } from '../../src/platformdata/trace-verification.js';
import { ingestTrace, sessionId, startPlatform } from '../platform-emulator/helpers.js';

const SECRET_KEY = 'sk-platform-test-9f8e7d6c5b4a';
const api = await startPlatform({
  traceDeleteDelayMs: 1000,
  apiKeys: [{ key: SECRET_KEY }],
  retryAfter: true,
});

const logLines: string[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
);
const options = {
  baseUrl: api.url,
  credentials: { apiKey: SECRET_KEY },
  retry: { baseDelayMs: 10, maxDelayMs: 50 },
  logger,
};
const controlPlane = new ControlPlaneClient(options);
const platform = new PlatformDataClient({ ...options, budget: controlPlane.budget });

async function traces(session: string, n: number, metadata: Record<string, unknown> = {}): Promise<string[]> {
  const made: string[] = [];
  for (let i = 0; i < n; i += 1) made.push(await ingestTrace(api, session, metadata, SECRET_KEY));
  return made;
}

describe('trace deletion against the emulator', () => {
  it('shares the control-plane client budget (one per credential)', () => {
    expect(platform.budget).toBe(controlPlane.budget);
    expect(platform.credentialFingerprint).toBe(controlPlane.credentialFingerprint);
  });

  it('survives a 429 storm mid-submission: every batch accepted once, then the traces are gone', async () => {
    const real = await traces('storm', 3);
    const session = await sessionId(api, 'storm', SECRET_KEY);
    const all = [...real, ...Array.from({ length: 2497 }, () => crypto.randomUUID())];
    await api.call('POST', '/_emulator/faults', {
      body: { method: 'POST', route: '/runs/delete', status: 429, count: 3, retryAfterSeconds: 0 },
    });
    const outcome = await submitTraceDeletion(platform, { sessionId: session, traceIds: all });
    expect(outcome).toEqual({ ok: true, value: { batchesAccepted: 3, idsAccepted: 2500 } });
    const stats = await api.call<{ byRoute: { route: string; status: number; count: number }[] }>(
      'GET',
      '/_emulator/stats',
    );
    const deletes = stats.body.byRoute.filter((r) => r.route === '/runs/delete');
    expect(deletes.filter((r) => r.status === 202).reduce((n, r) => n + r.count, 0)).toBe(3);
    expect(deletes.filter((r) => r.status === 429).reduce((n, r) => n + r.count, 0)).toBe(3);

    // Accepted is not done: until the weekend job runs, the traces are still found.
    expect(await findSurvivingTraces(platform, session, real)).toEqual({ ok: true, value: real });
    await vi.waitFor(
      async () => expect(await findSurvivingTraces(platform, session, real)).toEqual({ ok: true, value: [] }),
      {
        timeout: 5_000,
        interval: 100,
      },
    );
  });

  it('verification names the survivors: traces not requested, or deleted in another session, remain', async () => {
    const doomed = await traces('verify', 2);
    const spared = await traces('verify', 1);
    const session = await sessionId(api, 'verify', SECRET_KEY);
    expect((await platform.deleteTraces(session, doomed)).ok).toBe(true);
    await vi.waitFor(
      async () => {
        const left = await findSurvivingTraces(platform, session, [...doomed, ...spared]);
        expect(left).toEqual({ ok: true, value: spared });
      },
      { timeout: 5_000, interval: 100 },
    );
  });

  it('deletes by metadata and verifies by the same pairs', async () => {
    const gone = await traces('by-metadata', 2, { user_id: 'erase-me' });
    const kept = await traces('by-metadata', 1, { user_id: 'keep' });
    expect(await findTracesByMetadata(platform, { user_id: 'erase-me' })).toEqual({ ok: true, value: gone });
    expect((await platform.deleteTracesByMetadata({ user_id: 'erase-me' })).ok).toBe(true);
    await vi.waitFor(
      async () =>
        expect(await findTracesByMetadata(platform, { user_id: 'erase-me' })).toEqual({
          ok: true,
          value: [],
        }),
      {
        timeout: 5_000,
        interval: 100,
      },
    );
    expect(await findTracesByMetadata(platform, { user_id: 'keep' })).toEqual({ ok: true, value: kept });
  });

  it('refuses locally what the spec forbids, sending nothing', async () => {
    const before = await api.call<{ total: number }>('GET', '/_emulator/stats');
    const tooMany = await platform.deleteTraces(
      crypto.randomUUID(),
      Array.from({ length: 1001 }, () => crypto.randomUUID()),
    );
    expect(tooMany.ok).toBe(false);
    if (!tooMany.ok) expect(tooMany.error).toMatchObject({ kind: 'Terminal', status: 0, attempts: 0 });
    if (!tooMany.ok) expect(tooMany.error.message).toMatch(/trace_ids.*at most 1000/);
    const noPairs = await platform.deleteTracesByMetadata({});
    expect(noPairs.ok).toBe(false);
    const after = await api.call<{ total: number }>('GET', '/_emulator/stats');
    expect(after.body.total).toBe(before.body.total);
  });

  it('stops when aborted, reporting what was accepted', async () => {
    const session = await sessionId(api, 'storm', SECRET_KEY);
    const controller = new AbortController();
    const outcome = await submitTraceDeletion(platform, {
      sessionId: session,
      traceIds: Array.from({ length: 5000 }, () => crypto.randomUUID()),
      signal: controller.signal,
      onBatchAccepted: (batches) => {
        if (batches === 2) controller.abort();
      },
    });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.progress).toEqual({ batchesAccepted: 2, idsAccepted: 2000 });
  });
});

describe('examples against the emulator', () => {
  it('searches by metadata as of a time and deletes soft or hard', async () => {
    const dataset = await api.call<{ id: string }>('POST', '/datasets', {
      key: SECRET_KEY,
      body: { name: 'eval' },
    });
    const made = await api.call<{ id: string }[]>('POST', '/examples/bulk', {
      key: SECRET_KEY,
      body: [1, 2, 3].map((n) => ({
        dataset_id: dataset.body.id,
        inputs: { n },
        metadata: { owner: n === 3 ? 'b' : 'a' },
      })),
    });
    const asOf = new Date(Date.now() + 1);
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(asOf.getTime()));
    const found = await platform.searchExamples({ metadata: { owner: 'a' }, asOf });
    expect(found.ok && found.value.map((e) => e.id).sort()).toEqual(
      made.body
        .slice(0, 2)
        .map((e) => e.id)
        .sort(),
    );
    const ids = made.body.map((e) => e.id);
    const soft = await platform.deleteExamples(ids.slice(0, 2), false);
    expect(soft).toEqual({ ok: true, value: { count: 2, example_ids: ids.slice(0, 2) } });
    const hard = await platform.deleteExamples(ids, true);
    expect(hard.ok && hard.value.count).toBe(3);
    const after = await platform.searchExamples({ metadata: { owner: 'a' }, asOf: new Date(Date.now() + 1) });
    expect(after).toEqual({ ok: true, value: [] });
  });
});

describe('secrets', () => {
  it('never writes the API key to a log line or an error message, in any encoding', async () => {
    const wrong = new PlatformDataClient({ ...options, credentials: { apiKey: `${SECRET_KEY}-wrong` } });
    const refused = await wrong.deleteTracesByMetadata({ user_id: 'x' });
    await wrong.close();
    expect(refused.ok).toBe(false);
    const texts = [...logLines, refused.ok ? '' : JSON.stringify(refused.error)];
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of texts) {
      expect(text).not.toContain(SECRET_KEY);
      expect(text).not.toContain(JSON.stringify(SECRET_KEY).slice(1, -1));
      expect(text).not.toContain(Buffer.from(SECRET_KEY).toString('base64'));
    }
  });
});

describe('example deletion in batches', () => {
  it('finds every match across pages and deletes them in batches of at most 1000', async () => {
    const dataset = await api.call<{ id: string }>('POST', '/datasets', {
      key: SECRET_KEY,
      body: { name: 'big' },
    });
    const made = await api.call<{ id: string }[]>('POST', '/examples/bulk', {
      key: SECRET_KEY,
      body: Array.from({ length: 250 }, (_, n) => ({
        dataset_id: dataset.body.id,
        inputs: { n },
        metadata: { cohort: n < 230 ? 'old' : 'new' },
      })),
    });
    const asOf = new Date(Date.now() + 1);
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(asOf.getTime()));
    const found = await matchingExampleIds(platform, { metadata: { cohort: 'old' }, asOf });
    expect(found.ok && found.value.length).toBe(230);
    if (!found.ok) return;
    expect(new Set(found.value)).toEqual(new Set(made.body.slice(0, 230).map((e) => e.id)));
    const outcome = await submitExampleDeletion(platform, {
      exampleIds: found.value,
      hardDelete: false,
      batchSize: 100,
    });
    expect(outcome).toEqual({ ok: true, value: { batchesAccepted: 3, idsAccepted: 230 } });
    const left = await matchingExampleIds(platform, {
      metadata: { cohort: 'old' },
      asOf: new Date(Date.now() + 1),
    });
    expect(left).toEqual({ ok: true, value: [] });
  });
});
