// Counting what a deletion would touch, against the emulator: traces by metadata through the
// run query (root runs, ANY pair, page by page), examples by search, each stopping at the
// bound it is given without asking for a further page.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { matchingExampleIds } from '../../src/platformdata/example-deletion.js';
import { countTracesByMetadata } from '../../src/platformdata/match-count.js';
import { PlatformDataClient } from '../../src/platformdata/platform-data-client.js';
import { KEY, startPlatform } from '../platform-emulator/helpers.js';

const api = await startPlatform();
const client = new PlatformDataClient({
  baseUrl: api.url,
  credentials: { apiKey: KEY },
  logger: pino({ level: 'silent' }),
});

/** `count` traces (root runs, each with a child run that carries the same metadata) in one batch. */
async function traces(count: number, metadata: Record<string, string>): Promise<void> {
  const post = Array.from({ length: count }, () => {
    const id = crypto.randomUUID();
    const run = { trace_id: id, run_type: 'chain', start_time: new Date().toISOString(), inputs: {} };
    return [
      { ...run, id, name: 'agent', session_name: 'counting', extra: { metadata } },
      {
        ...run,
        id: crypto.randomUUID(),
        parent_run_id: id,
        name: 'tool',
        session_name: 'counting',
        extra: { metadata },
      },
    ];
  }).flat();
  const response = await api.call('POST', '/runs/batch', { body: { post } });
  if (response.status !== 202) throw new Error(`ingest failed: ${response.status}`);
}

async function queriesOf(method: string, route: string): Promise<number> {
  const stats = await api.call<{ byRoute: Array<{ method: string; route: string; count: number }> }>(
    'GET',
    '/_emulator/stats',
  );
  return stats.body.byRoute
    .filter((row) => row.method === method && row.route === route)
    .reduce((sum, row) => sum + row.count, 0);
}

describe('countTracesByMetadata', () => {
  it('counts root runs with ANY of the pairs, workspace-wide, across pages', async () => {
    await traces(150, { tenant: 'team-a' });
    await traces(30, { user_id: 'u-9' });
    await traces(7, { tenant: 'team-b' });
    expect(await countTracesByMetadata(client, { tenant: 'team-a', user_id: 'u-9' }, 10_000)).toEqual({
      ok: true,
      value: 180,
    });
  });

  it('stops at the bound without asking for another page', async () => {
    await traces(250, { batch: 'big' });
    const before = await queriesOf('POST', '/runs/query');
    expect(await countTracesByMetadata(client, { batch: 'big' }, 101)).toEqual({ ok: true, value: 101 });
    expect((await queriesOf('POST', '/runs/query')) - before).toBe(2);
  });

  it('counts none when nothing matches', async () => {
    expect(await countTracesByMetadata(client, { tenant: 'nobody' }, 5)).toEqual({ ok: true, value: 0 });
  });
});

describe('matchingExampleIds with a bound', () => {
  it('stops at the bound without asking for another page', async () => {
    const dataset = await api.call<{ id: string }>('POST', '/datasets', { body: { name: 'bounded' } });
    const examples = Array.from({ length: 230 }, (_, i) => ({
      dataset_id: dataset.body.id,
      inputs: { i },
      metadata: { suite: 'bounded' },
    }));
    const created = await api.call('POST', '/examples/bulk', { body: examples });
    expect(created.status).toBeLessThan(300);
    const search = { metadata: { suite: 'bounded' }, asOf: new Date(Date.now() + 60_000) };
    const before = await queriesOf('GET', '/examples');
    const found = await matchingExampleIds(client, search, undefined, 120);
    expect(found.ok && found.value.length).toBe(120);
    expect((await queriesOf('GET', '/examples')) - before).toBe(2);
    const all = await matchingExampleIds(client, search);
    expect(all.ok && all.value.length).toBe(230);
  });
});
