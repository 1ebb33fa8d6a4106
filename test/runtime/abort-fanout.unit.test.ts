// One listener on a long-lived signal for all its followers: each follower is called once with
// the reason, an unfollowed one never, and the listener goes with the last follower.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/signals/abort-fanout.js';
import { Departures } from '../../src/runtime/manager/departures.js';

describe('onAbort', () => {
  it('follows with one listener, calls each remaining follower once, and lets go with the last', () => {
    const signal = new AbortController();
    const heard: string[] = [];
    const stops = Array.from({ length: 30 }, (_, i) =>
      onAbort(signal.signal, (reason) => heard.push(`${i}:${String(reason)}`)),
    );
    expect(getEventListeners(signal.signal, 'abort')).toHaveLength(1);
    stops[0]?.();
    stops[0]?.();
    signal.abort('stop');
    expect(heard).toHaveLength(29);
    expect(heard[0]).toBe('1:stop');

    const quiet = new AbortController();
    const unfollow = [
      onAbort(quiet.signal, () => heard.push('x')),
      onAbort(quiet.signal, () => heard.push('y')),
    ];
    for (const stop of unfollow) stop();
    expect(getEventListeners(quiet.signal, 'abort')).toHaveLength(0);
    quiet.abort();
    expect(heard).not.toContain('x');
    // A new follower after the last one left gets a listener again.
    const again = new AbortController();
    const first = onAbort(again.signal, () => heard.push('first'));
    first();
    onAbort(again.signal, (reason) => heard.push(`again:${String(reason)}`));
    again.abort('now');
    expect(heard).toContain('again:now');
  });

  it("keeps the controller's signal at one listener however many passes run at once", async () => {
    const departures = new Departures({ addHandler: () => () => undefined });
    const controller = new AbortController();
    const releases: Array<() => void> = [];
    const passes = Array.from({ length: 16 }, (_, i) =>
      departures.run(
        `ns/o${i}`,
        controller.signal,
        (signal) =>
          new Promise<boolean>((resolve) => {
            releases.push(() => resolve(signal.aborted));
            signal.addEventListener('abort', () => resolve(true), { once: true });
          }),
      ),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    releases[0]?.();
    controller.abort();
    const aborted = await Promise.all(passes);
    expect(aborted.filter(Boolean)).toHaveLength(15);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
