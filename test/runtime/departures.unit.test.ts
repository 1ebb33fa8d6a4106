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

  it('a departure with no pass running is nothing', () => {
    const cache = source();
    const departures = new Departures(cache);
    expect(() => cache.remove('a', 'b')).not.toThrow();
    expect(departures.runningKeys).toBe(0);
  });
});
