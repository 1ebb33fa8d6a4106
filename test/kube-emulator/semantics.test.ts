// API semantics over plain HTTP: the rules a controller relies on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectWatch, http, installWidgetCrd, startTestEmulator, widget, WIDGETS, type TestEmulator } from './helpers.js';

let env: TestEmulator;

beforeAll(async () => {
  env = await startTestEmulator({ watchHistory: 5, bookmarkIntervalMs: 100 });
  await installWidgetCrd(env);
});
afterAll(async () => {
  await env.stop();
});

type Meta = { resourceVersion: string; generation: number; uid: string; name: string };
const meta = (body: Record<string, unknown>): Meta => body['metadata'] as Meta;

describe('write semantics', () => {
  it('answers AlreadyExists and Conflict with real Status objects', async () => {
    const created = await http(env, 'POST', WIDGETS, widget('a1'));
    expect(created.status).toBe(201);
    const again = await http(env, 'POST', WIDGETS, widget('a1'));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'AlreadyExists',
      message: 'widgets.example.com "a1" already exists',
      details: { name: 'a1', group: 'example.com', kind: 'widgets' },
      code: 409,
    });
    const stale = { ...created.body, spec: { size: 2 } };
    expect((await http(env, 'PUT', `${WIDGETS}/a1`, stale)).status).toBe(200);
    const conflict = await http(env, 'PUT', `${WIDGETS}/a1`, { ...stale, spec: { size: 3 } });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ reason: 'Conflict', code: 409 });
    expect(String(conflict.body['message'])).toContain('the object has been modified');
  });

  it('bumps generation only for spec changes; status and metadata writes keep it', async () => {
    const created = await http(env, 'POST', WIDGETS, widget('g1', 1));
    expect(meta(created.body).generation).toBe(1);
    const labelled = await http(env, 'PATCH', `${WIDGETS}/g1`, { metadata: { labels: { x: 'y' } } }, 'application/merge-patch+json');
    expect(meta(labelled.body).generation).toBe(1);
    const status = await http(env, 'PATCH', `${WIDGETS}/g1/status`, { status: { observedGeneration: 1 }, spec: { size: 50 } }, 'application/merge-patch+json');
    expect(meta(status.body).generation).toBe(1);
    expect(status.body['spec']).toMatchObject({ size: 1 }); // spec ignored on /status
    const ignoredStatus = await http(env, 'PATCH', `${WIDGETS}/g1`, { status: { observedGeneration: 7 } }, 'application/merge-patch+json');
    expect(ignoredStatus.body['status']).toEqual({ observedGeneration: 1 }); // status ignored on the main resource
    const grown = await http(env, 'PATCH', `${WIDGETS}/g1`, [{ op: 'replace', path: '/spec/size', value: 2 }], 'application/json-patch+json');
    expect(meta(grown.body).generation).toBe(2);
    // A write that changes nothing is not a write: same resourceVersion.
    const same = await http(env, 'PATCH', `${WIDGETS}/g1`, { spec: { size: 2 } }, 'application/merge-patch+json');
    expect(meta(same.body).resourceVersion).toBe(meta(grown.body).resourceVersion);
  });

  describe('a PUT that changes nothing keeps resourceVersion, as a real API server', () => {
    const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
    const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
    /**
     * The object as the official Python client sends it back after a read: its datetimes
     * re-serialized by isoformat(), `+00:00` instead of `Z` (managedFields[].time,
     * creationTimestamp). The same instants: a real server parses them and sees no change.
     */
    const asPythonSends = (body: Record<string, unknown>): Record<string, unknown> =>
      JSON.parse(JSON.stringify(body).replace(/"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)Z"/g, '"$1+00:00"')) as Record<string, unknown>;

    it.each([
      ['a ConfigMap', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noop-cm' }, data: { a: '1' } }],
      [
        'a Deployment',
        DEPLOYMENTS,
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'noop-deploy' },
          spec: {
            selector: { matchLabels: { app: 'x' } },
            template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } },
          },
        },
      ],
      ['a custom resource', WIDGETS, widget('noop-widget')],
    ])('%s, sent back as read, or as the Python client re-serializes it', async (_kind, collection, object) => {
      const name = (object['metadata'] as { name: string }).name;
      expect((await http(env, 'POST', collection, object)).status).toBe(201);
      const read = await http(env, 'GET', `${collection}/${name}`);
      const rv = meta(read.body).resourceVersion;
      const asRead = await http(env, 'PUT', `${collection}/${name}`, read.body);
      expect(asRead.status).toBe(200);
      expect(meta(asRead.body).resourceVersion).toBe(rv);
      const fromPython = await http(env, 'PUT', `${collection}/${name}`, asPythonSends(read.body));
      expect(fromPython.status).toBe(200);
      expect(meta(fromPython.body).resourceVersion).toBe(rv);
      // And what is stored stays in the server's own form.
      expect((await http(env, 'GET', `${collection}/${name}`)).body).toEqual(read.body);
      // A PUT that does change something still moves it.
      const labelled = { ...read.body, metadata: { ...(read.body['metadata'] as object), labels: { changed: 'yes' } } };
      const changed = await http(env, 'PUT', `${collection}/${name}`, asPythonSends(labelled));
      expect(Number(meta(changed.body).resourceVersion)).toBeGreaterThan(Number(rv));
    });
  });

  it('requires the namespace to exist and rejects invalid objects with field causes', async () => {
    const missing = await http(env, 'POST', '/apis/example.com/v1/namespaces/nowhere/widgets', widget('n1'));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', message: 'namespaces "nowhere" not found' });
    const bad = await http(env, 'POST', WIDGETS, { ...widget('bad'), spec: { size: -1 } });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ reason: 'Invalid', details: { kind: 'Widget', group: 'example.com', name: 'bad' } });
    const causes = (bad.body['details'] as { causes: Array<{ field: string }> }).causes;
    expect(causes.map((c) => c.field)).toContain('spec.size');
  });

  it('dryRun=All validates without storing', async () => {
    const dry = await http(env, 'POST', `${WIDGETS}?dryRun=All`, widget('dry'));
    expect(dry.status).toBe(201);
    expect((await http(env, 'GET', `${WIDGETS}/dry`)).status).toBe(404);
  });

  it('refuses Lease times without six fractional digits (MicroTime)', async () => {
    const lease = (renewTime: string): Record<string, unknown> => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: `l-${renewTime.length}` },
      spec: { holderIdentity: 'me', renewTime },
    });
    const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    expect((await http(env, 'POST', leases, lease('2024-01-01T00:00:00.000Z'))).status).toBe(400);
    expect((await http(env, 'POST', leases, lease('2024-01-01T00:00:00.000000Z'))).status).toBe(201);
  });
});

describe('events', () => {
  it('serves one event storage as events.k8s.io/v1 and core/v1 (what kubectl describe reads)', async () => {
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'a1.1' },
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingController: 'example.com/operator',
      reportingInstance: 'operator-0',
      action: 'Reconcile',
      reason: 'Synced',
      type: 'Normal',
      note: 'all good',
      regarding: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'a1', namespace: 'default' },
    };
    expect((await http(env, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', event)).status).toBe(201);
    const invalid = await http(env, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', { ...event, metadata: { name: 'x' }, type: 'Odd' });
    expect(invalid.status).toBe(422);
    const core = await http(env, 'GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Da1,involvedObject.kind%3DWidget');
    const items = core.body['items'] as Array<Record<string, unknown>>;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ apiVersion: 'v1', message: 'all good', involvedObject: { name: 'a1' }, reportingComponent: 'example.com/operator' });
  });
  it('deleting a namespace removes its events too, so the namespace goes away', async () => {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'short-lived' } };
    expect((await http(env, 'POST', '/api/v1/namespaces', namespace)).status).toBe(201);
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: 'short-lived' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/operator',
      reportingInstance: 'operator-0',
      action: 'Reconcile',
      reason: 'Synced',
      type: 'Normal',
      note: 'all good',
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c1', namespace: 'short-lived' },
    };
    expect((await http(env, 'POST', '/apis/events.k8s.io/v1/namespaces/short-lived/events', event)).status).toBe(201);
    expect((await http(env, 'DELETE', '/api/v1/namespaces/short-lived')).status).toBe(200);
    expect((await http(env, 'GET', '/api/v1/namespaces/short-lived')).status).toBe(404);
    expect((await http(env, 'GET', '/api/v1/namespaces/short-lived/events')).body['items']).toEqual([]);
  });
});

describe('reads', () => {
  it('filters by label and field selectors', async () => {
    for (const [name, tier] of [['s1', 'web'], ['s2', 'db'], ['s3', 'web']] as const) {
      await http(env, 'POST', WIDGETS, widget(name, 1, { tier, suite: 'selectors' }));
    }
    const names = async (query: string): Promise<string[]> => {
      const list = await http(env, 'GET', `${WIDGETS}?${query}`);
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      return (list.body['items'] as Array<Record<string, unknown>>).map((i) => meta(i).name);
    };
    expect(await names('labelSelector=tier%3Dweb')).toEqual(['s1', 's3']);
    expect(await names('labelSelector=suite%3D%3Dselectors,tier!%3Dweb')).toEqual(['s2']);
    expect(await names('labelSelector=tier%20in%20(db,cache)')).toEqual(['s2']);
    expect(await names('labelSelector=suite,tier%20notin%20(db)')).toEqual(['s1', 's3']);
    expect(await names('labelSelector=suite,!tier')).toEqual([]);
    expect(await names('fieldSelector=metadata.name%3Ds2')).toEqual(['s2']);
    expect((await http(env, 'GET', `${WIDGETS}?fieldSelector=spec.size%3D1`)).status).toBe(400);
  });

  it('paginates with limit and continue, keeping the list resourceVersion', async () => {
    for (let i = 0; i < 7; i += 1) await http(env, 'POST', WIDGETS, widget(`p${i}`, 1, { suite: 'pages' }));
    const seen: string[] = [];
    let token: string | undefined;
    let firstRv: string | undefined;
    do {
      const page = await http(env, 'GET', `${WIDGETS}?labelSelector=suite%3Dpages&limit=3${token ? `&continue=${token}` : ''}`);
      const metadata = page.body['metadata'] as { continue?: string; resourceVersion: string };
      firstRv ??= metadata.resourceVersion;
      expect(metadata.resourceVersion).toBe(firstRv);
      seen.push(...(page.body['items'] as Array<Record<string, unknown>>).map((i) => meta(i).name));
      token = metadata.continue;
    } while (token);
    expect(seen).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
  });
});

describe('watch', () => {
  it('replays from a resourceVersion, then streams live changes', async () => {
    const created = await http(env, 'POST', WIDGETS, widget('w-replay'));
    const rv = meta(created.body).resourceVersion;
    await http(env, 'PATCH', `${WIDGETS}/w-replay`, { spec: { size: 4 } }, 'application/merge-patch+json');
    const { events } = await collectWatch(
      env,
      `${WIDGETS}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dw-replay`,
      (e) => e.length >= 2,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await http(env, 'DELETE', `${WIDGETS}/w-replay`);
      },
    );
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
  });

  it('sends a 410 Expired ERROR event when the resourceVersion is older than the history', async () => {
    for (let i = 0; i < 8; i += 1) await http(env, 'PATCH', `${WIDGETS}/a1`, { metadata: { labels: { i: String(i) } } }, 'application/merge-patch+json');
    const { events } = await collectWatch(env, `${WIDGETS}?watch=1&resourceVersion=2`, (e) => e.length >= 1);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', reason: 'Expired', code: 410 } });
  });

  it('sends bookmarks when asked, and turns selector changes into ADDED/DELETED', async () => {
    const list = await http(env, 'GET', WIDGETS);
    const rv = (list.body['metadata'] as { resourceVersion: string }).resourceVersion;
    const { events } = await collectWatch(
      env,
      `${WIDGETS}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&labelSelector=color%3Dred`,
      (e) => e.some((x) => x.type === 'BOOKMARK') && e.filter((x) => x.type !== 'BOOKMARK').length >= 2,
      async () => {
        await http(env, 'PATCH', `${WIDGETS}/s1`, { metadata: { labels: { color: 'red' } } }, 'application/merge-patch+json');
        await http(env, 'PATCH', `${WIDGETS}/s1`, { metadata: { labels: { color: null } } }, 'application/merge-patch+json');
      },
    );
    expect(events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type}:${e.object.metadata?.name ?? ''}`)).toEqual(['ADDED:s1', 'DELETED:s1']);
    const bookmark = events.find((e) => e.type === 'BOOKMARK');
    expect(Number(bookmark?.object.metadata?.resourceVersion)).toBeGreaterThanOrEqual(Number(rv));
  });

  it('starts with the current state when no resourceVersion is given, and ends at timeoutSeconds', async () => {
    const { events, ended } = await collectWatch(env, `${WIDGETS}?watch=true&timeoutSeconds=1&labelSelector=tier`, () => false);
    expect(ended).toBe(true);
    expect(events.map((e) => `${e.type}:${e.object.metadata?.name ?? ''}`).sort()).toEqual(['ADDED:s1', 'ADDED:s2', 'ADDED:s3']);
  });
});

describe('faults and restart', () => {
  it('drops watches, forces 410s, fails requests, and clears', async () => {
    const dropped = await collectWatch(env, `${WIDGETS}?watch=true&labelSelector=none`, () => false, async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      env.emulator.faults.dropWatches();
    });
    expect(dropped.ended).toBe(true);

    env.emulator.faults.expireWatches(1);
    const expired = await collectWatch(env, `${WIDGETS}?watch=true`, (e) => e.length >= 1);
    expect(expired.events[0]).toMatchObject({ type: 'ERROR', object: { code: 410 } });
    const normal = await collectWatch(env, `${WIDGETS}?watch=true&fieldSelector=metadata.name%3Ds1`, (e) => e.length >= 1);
    expect(normal.events[0]?.type).toBe('ADDED');

    env.emulator.faults.failRequests({ rate: 1, statuses: [503] });
    const failed = await http(env, 'GET', WIDGETS);
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect(failed.headers.get('retry-after')).toBe('1');
    env.emulator.faults.clear();
    expect((await http(env, 'GET', WIDGETS)).status).toBe(200);
  });

  it('offers the same faults over HTTP', async () => {
    const set = await http(env, 'POST', '/_emulator/faults', { failRequests: { rate: 1, statuses: [429] } });
    expect(set.status).toBe(200);
    expect((await http(env, 'GET', WIDGETS)).status).toBe(429);
    expect((await http(env, 'DELETE', '/_emulator/faults')).status).toBe(200);
    expect((await http(env, 'GET', WIDGETS)).status).toBe(200);
    expect((await http(env, 'POST', '/_emulator/faults', { explode: true })).status).toBe(400);
  });

  it('restart drops connections and keeps state', async () => {
    const before = await http(env, 'GET', `${WIDGETS}/s1`);
    const watch = collectWatch(env, `${WIDGETS}?watch=true&labelSelector=none`, () => false);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await env.emulator.restart();
    expect((await watch).ended).toBe(true);
    const after = await http(env, 'GET', `${WIDGETS}/s1`);
    expect(after.status).toBe(200);
    expect(meta(after.body).uid).toBe(meta(before.body).uid);
    expect(meta(after.body).resourceVersion).toBe(meta(before.body).resourceVersion);
  });
});
