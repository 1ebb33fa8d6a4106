import { describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { Departures } from '../../src/runtime/manager/departures.js';
import type { ResourceEventHandler } from '../../src/runtime/reflector/handlers.js';

function source() {
  const handlers: ResourceEventHandler[] = [];
  return {
    addHandler: (handler: ResourceEventHandler) => {
      handlers.push(handler);
      return () => undefined;
    },
    remove: (namespace: string, name: string) => {
      const object: KubeObject = { apiVersion: 'v1', kind: 'Thing', metadata: { namespace, name } };
      handlers.forEach((handler) => handler.onDelete?.(object));
    },
  };
}

/** A pass that waits until its signal aborts (or it is let go), then says which. */
function pass(release: Promise<void>) {
  return (signal: AbortSignal) =>
    new Promise<string>((resolve) => {
      const aborted = () => resolve(`aborted: ${String((signal.reason as Error).message)}`);
      if (signal.aborted) aborted();
      signal.addEventListener('abort', aborted);
      void release.then(() => resolve('finished'));
    });
}

describe('Departures', () => {
  it("aborts the running pass of the key whose object left the cache, and no other key's", async () => {
    const cache = source();
    const departures = new Departures(cache);
    const never = new Promise<void>(() => undefined);
    let releaseOther = (): void => undefined;
    const other = new Promise<void>((resolve) => (releaseOther = resolve));
    const moved = departures.run('team-a/moved', new AbortController().signal, pass(never));
    const staying = departures.run('team-a/staying', new AbortController().signal, pass(other));
    cache.remove('team-a', 'moved');
    expect(await moved).toMatch(/^aborted: team-a\/moved left this operator's cache/);
    releaseOther();
    expect(await staying).toBe('finished');
    expect(departures.runningKeys).toBe(0);
  });

  it("follows the controller's own signal, already aborted or aborted later", async () => {
    const departures = new Departures(source());
    const stopped = new AbortController();
    stopped.abort(new Error('lease lost'));
    expect(await departures.run('a/b', stopped.signal, pass(new Promise(() => undefined)))).toBe(
      'aborted: lease lost',
    );
    const later = new AbortController();
    const running = departures.run('a/c', later.signal, pass(new Promise(() => undefined)));
    later.abort(new Error('shutting down'));
    expect(await running).toBe('aborted: shutting down');
  });

  it("listens to the controller's signal once for all its passes, and lets an ended pass go", async () => {
    const departures = new Departures(source());
    const controller = new AbortController();
    const listening = vi.spyOn(controller.signal, 'addEventListener');
    const ended: AbortSignal[] = [];
    for (let i = 0; i < 50; i += 1) {
      await departures.run(`a/o${i}`, controller.signal, (signal) => {
        ended.push(signal);
        return Promise.resolve();
      });
    }
    // A listener added and removed per pass was a cost of every no-op reconcile.
    expect(listening).toHaveBeenCalledTimes(1);
    const running = departures.run('a/last', controller.signal, pass(new Promise(() => undefined)));
    controller.abort(new Error('lease lost'));
    expect(await running).toBe('aborted: lease lost');
    // A pass that has ended is not aborted with the controller: nothing of it runs any more.
    expect(ended.some((signal) => signal.aborted)).toBe(false);
  });

  it("aborts with a controller's signal only the passes under it, not another controller's", async () => {
    const departures = new Departures(source());
    const stopping = new AbortController();
    const staying = new AbortController();
    let releaseStaying = (): void => undefined;
    const release = new Promise<void>((resolve) => (releaseStaying = resolve));
    const stopped = departures.run('a/one', stopping.signal, pass(new Promise(() => undefined)));
    const kept = departures.run('a/two', staying.signal, pass(release));
    stopping.abort(new Error('lease lost'));
    expect(await stopped).toBe('aborted: lease lost');
    releaseStaying();
    expect(await kept).toBe('finished');
    expect(departures.runningKeys).toBe(0);
  });

  it('two passes of one key (two controllers over one cache) are both aborted, and both let go when they end', async () => {
    const cache = source();
    const departures = new Departures(cache);
    const never = new Promise<void>(() => undefined);
    let releaseThird = (): void => undefined;
    const third = new Promise<void>((resolve) => (releaseThird = resolve));
    const first = departures.run('a/b', new AbortController().signal, pass(never));
    const second = departures.run('a/b', new AbortController().signal, pass(never));
    cache.remove('a', 'b');
    expect(await first).toMatch(/^aborted: a\/b left/);
    expect(await second).toMatch(/^aborted: a\/b left/);
    expect(departures.runningKeys).toBe(0);
    // One pass of the key again, then a second beside it that ends first: the first still hears its departure.
    const lone = departures.run('a/b', new AbortController().signal, pass(never));
    const brief = departures.run('a/b', new AbortController().signal, pass(third));
    releaseThird();
    expect(await brief).toBe('finished');
    cache.remove('a', 'b');
    expect(await lone).toMatch(/^aborted: a\/b left/);
    expect(departures.runningKeys).toBe(0);
  });

  it('a departure with no pass running is nothing', () => {
    const cache = source();
    const departures = new Departures(cache);
    expect(() => cache.remove('a', 'b')).not.toThrow();
    expect(departures.runningKeys).toBe(0);
  });
});
