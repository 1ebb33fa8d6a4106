// The kit's object port: a pass never reads around its own write (the overlay), a status that
// did not change costs no request, guarded writes carry the resourceVersion, and a failed
// write is classified the same way for every kind.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../../src/runtime/kube/errors.js';
import type { KubeObject } from '../../../src/runtime/kube/objects.js';
import { CachedObjectPort } from '../../../src/runtime/reconcile/object-port.js';
import { addFinalizer, removeFinalizer } from '../../../src/runtime/reconcile/finalizers.js';

type Widget = KubeObject & { status?: { phase?: string; note?: string } };

const TYPE = { group: 'example.com', version: 'v1', plural: 'widgets' };

function widget(resourceVersion: string, status?: Widget['status'], finalizers?: string[]): Widget {
  return {
    metadata: { namespace: 'team-a', name: 'w', resourceVersion, ...(finalizers ? { finalizers } : {}) },
    ...(status ? { status } : {}),
  };
}

function setUp(answer: (body: Record<string, unknown>) => Widget | Error) {
  const cache = new Map<string, Widget>([['team-a/w', widget('1', { phase: 'Old' })]]);
  const requests: Array<{ kind: 'object' | 'status'; body: Record<string, unknown> }> = [];
  const respond = (kind: 'object' | 'status', body: Record<string, unknown>) => {
    requests.push({ kind, body });
    const result = answer(body);
    return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
  };
  const port = new CachedObjectPort<Widget>({
    client: {
      mergePatch: <T extends KubeObject>(
        _t: unknown,
        _n: unknown,
        _name: string,
        body: Record<string, unknown>,
      ) => respond('object', body) as unknown as Promise<T>,
      mergePatchStatus: <T extends KubeObject>(
        _t: unknown,
        _n: unknown,
        _name: string,
        body: Record<string, unknown>,
      ) => respond('status', body) as unknown as Promise<T>,
    },
    type: TYPE,
    store: { get: (key) => cache.get(key) },
    recorder: { record: () => Promise.resolve() },
    logger: pino({ level: 'silent' }),
  });
  return { port, cache, requests };
}

const signal = new AbortController().signal;

describe('CachedObjectPort', () => {
  it('forgets the writes the cache has caught up with even when their keys are never read again', async () => {
    const cache = new Map<string, Widget>();
    const named = (name: string, resourceVersion: string): Widget => ({
      metadata: { namespace: 'team-a', name, resourceVersion },
      status: { phase: resourceVersion === '1' ? 'Old' : 'New' },
    });
    const port = new CachedObjectPort<Widget>({
      client: {
        mergePatch: () => Promise.reject(new Error('not used')),
        mergePatchStatus: <T extends KubeObject>(_t: unknown, _n: unknown, name: string) =>
          Promise.resolve({
            ...named(name, '2'),
            metadata: { ...named(name, '2').metadata, managedFields: [{ manager: 'operator' }] },
          } as unknown as T),
      },
      type: TYPE,
      store: { get: (key) => cache.get(key) },
      recorder: { record: () => Promise.resolve() },
      logger: pino({ level: 'silent' }),
    });
    for (let i = 0; i < 1000; i += 1) {
      const name = `w${i}`;
      cache.set(`team-a/${name}`, named(name, '1'));
      const written = await port.patchStatus(named(name, '1'), { phase: 'New' }, signal);
      // The overlay is trimmed as the cache is: no managedFields kept twice.
      expect(written.ok && 'managedFields' in written.value.metadata).toBe(false);
      // The watch delivers the write; nothing reads the key again.
      cache.set(`team-a/${name}`, named(name, '2'));
    }
    expect(port.overlayCount).toBeLessThan(64);
  });

  it('serves its own write until the cache has it, then the cache again', async () => {
    const { port, cache } = setUp(() => widget('2', { phase: 'New' }));
    const before = port.get('team-a/w');
    expect(before?.status?.phase).toBe('Old');
    const written = await port.patchStatus(before as Widget, { phase: 'New' }, signal);
    expect(written).toMatchObject({ ok: true });
    // The cache is behind: the port answers with the write.
    expect(port.get('team-a/w')?.metadata.resourceVersion).toBe('2');
    // The cache catches up (or moves past): the cache wins.
    cache.set('team-a/w', widget('3', { phase: 'Newer' }));
    expect(port.get('team-a/w')?.status?.phase).toBe('Newer');
    // Gone from the cache: gone, whatever was written.
    cache.delete('team-a/w');
    expect(port.get('team-a/w')).toBeUndefined();
  });

  it('keeps serving its own write while the cache shows a version written by another between its read and its write', async () => {
    // Read at 1; someone changes the spec (2); the unguarded status patch lands on top (3). The
    // watch then delivers 2: older than the write, though this port never saw it. Serving it
    // would hide the status just written, and the next pass would write (and announce) it again.
    const { port, cache } = setUp(() => widget('3', { phase: 'New' }));
    const written = await port.patchStatus(port.get('team-a/w') as Widget, { phase: 'New' }, signal);
    expect(written).toMatchObject({ ok: true });
    cache.set('team-a/w', widget('2', { phase: 'Old' }));
    expect(port.get('team-a/w')?.status?.phase).toBe('New');
    cache.set('team-a/w', widget('3', { phase: 'New' }));
    expect(port.get('team-a/w')?.metadata.resourceVersion).toBe('3');
    cache.set('team-a/w', widget('10', { phase: 'Later' }));
    expect(port.get('team-a/w')?.status?.phase).toBe('Later');
  });

  it('falls back to the versions it saw when a resourceVersion is not a comparable integer', async () => {
    const { port, cache } = setUp(() => widget('c', { phase: 'New' }));
    cache.set('team-a/w', widget('a', { phase: 'Old' }));
    await port.patchStatus(port.get('team-a/w') as Widget, { phase: 'New' }, signal);
    expect(port.get('team-a/w')?.status?.phase).toBe('New');
    // An opaque version never seen: it can only be taken as the newer.
    cache.set('team-a/w', widget('b', { phase: 'Other' }));
    expect(port.get('team-a/w')?.status?.phase).toBe('Other');
  });

  it('sends no request for an unchanged status, a diff for a changed one, and a precondition when guarded', async () => {
    const { port, requests } = setUp(() => widget('2', { phase: 'New' }));
    const object = port.get('team-a/w') as Widget;
    expect(await port.patchStatus(object, { phase: 'Old' }, signal)).toEqual({ ok: true, value: object });
    expect(requests).toEqual([]);
    await port.patchStatus(object, { note: 'n' }, signal, { guarded: true });
    expect(requests).toEqual([
      {
        kind: 'status',
        body: { status: { phase: null, note: 'n' }, metadata: { resourceVersion: '1' } },
      },
    ]);
  });

  it.each([
    [409, 'Conflict'],
    [404, 'Gone'],
    [500, 'Failed'],
  ] as const)('classifies a failed write with HTTP %i as %s', async (status, reason) => {
    const { port } = setUp(() => new KubeApiError(status, 'x', `HTTP ${status}`));
    const outcome = await port.patchFinalizers(port.get('team-a/w') as Widget, ['f'], signal);
    expect(outcome).toEqual({ ok: false, reason, message: `HTTP ${status}`, status });
  });

  it('adds and removes a finalizer with a guarded write, and writes nothing when there is nothing to do', async () => {
    const { port, requests } = setUp((body) =>
      widget('2', undefined, (body.metadata as { finalizers: string[] }).finalizers),
    );
    const object = widget('1', undefined, ['other']);
    await addFinalizer(port, object, 'mine', signal);
    expect(requests.at(-1)?.body).toEqual({
      metadata: { finalizers: ['other', 'mine'], resourceVersion: '1' },
    });
    await addFinalizer(port, widget('2', undefined, ['mine']), 'mine', signal);
    await removeFinalizer(port, widget('2', undefined, ['other']), 'mine', signal);
    expect(requests).toHaveLength(1);
    await removeFinalizer(port, widget('2', undefined, ['other', 'mine']), 'mine', signal);
    expect(requests.at(-1)?.body).toEqual({ metadata: { finalizers: ['other'], resourceVersion: '2' } });
  });
});
