// Events are not waited for by the passes that record them, so a burst of passes must not
// become a burst of Event writes: a few are written at once, the rest wait in order, and past
// the queue's bound new ones are dropped (client-go's broadcaster does the same). The queue is
// every team's: namespaces are served in turn, and a flooding namespace loses its own events.
import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { EventRecorder, type ObjectReference } from '../../src/runtime/events/recorder.js';
import type { Clock } from '../../src/runtime/clock.js';
import { FakeClock } from './support/fake-clock.js';

/** A client whose Event creates stay pending until the test answers them, in order. */
function pendingClient() {
  const created: string[] = [];
  const events: KubeObject[] = [];
  const answers: Array<() => void> = [];
  const client = {
    create: (_type: unknown, event: KubeObject) => {
      created.push(String((event as { note?: unknown }).note));
      events.push(event);
      return new Promise<KubeObject>((resolve) => answers.push(() => resolve(event)));
    },
    mergePatch: () => Promise.reject(new Error('no repeats in this test')),
  } as unknown as KubeClient;
  return {
    client,
    created,
    events,
    /** Answers the oldest pending create, then lets every continuation it frees run. */
    answerOne: async () => {
      answers.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function objectNumber(i: number, namespace = 'default'): ObjectReference {
  return { apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${i}`, namespace, uid: `${namespace}-uid-${i}` };
}

function recorderOn(
  api: ReturnType<typeof pendingClient>,
  bounds: { maxInFlight: number; maxQueued?: number },
  clock?: Clock,
): EventRecorder {
  return new EventRecorder({
    client: api.client,
    component: 'test',
    instance: 'i',
    ...bounds,
    ...(clock === undefined ? {} : { clock }),
  });
}

/** `count` events about as many objects, recorded at once ("event 0", "event 1", ...). */
function burst(
  api: ReturnType<typeof pendingClient>,
  bounds: { maxInFlight: number; maxQueued?: number },
  count: number,
  clock?: Clock,
): { recorder: EventRecorder; recorded: Promise<void>[] } {
  const recorder = recorderOn(api, bounds, clock);
  const recorded = Array.from({ length: count }, (_, i) =>
    recorder.record(objectNumber(i), 'Normal', 'Created', `event ${i}`),
  );
  return { recorder, recorded };
}

describe('the event recorder under a burst', () => {
  it('writes a few events at once and the rest in the order they came', async () => {
    const api = pendingClient();
    const { recorded } = burst(api, { maxInFlight: 2 }, 5);
    await Promise.resolve();
    expect(api.created).toEqual(['event 0', 'event 1']);
    await api.answerOne();
    expect(api.created).toEqual(['event 0', 'event 1', 'event 2']);
    for (let i = 0; i < 4; i += 1) await api.answerOne();
    await Promise.all(recorded);
    expect(api.created).toEqual(['event 0', 'event 1', 'event 2', 'event 3', 'event 4']);
  });

  it('drops new events while too many wait, and takes them again once the queue drains', async () => {
    const api = pendingClient();
    const { recorder, recorded } = burst(api, { maxInFlight: 1, maxQueued: 2 }, 5);
    // One written, two waiting, two dropped: their records resolve at once.
    await Promise.all(recorded.slice(3));
    for (let i = 0; i < 3; i += 1) await api.answerOne();
    await Promise.all(recorded);
    expect(api.created).toEqual(['event 0', 'event 1', 'event 2']);

    const later = recorder.record(objectNumber(9), 'Normal', 'Created', 'event 9');
    await api.answerOne();
    await later;
    expect(api.created.at(-1)).toBe('event 9');
  });

  it('stamps an event that waited for a write with the time it was recorded', async () => {
    // client-go stamps an Event when it is recorded; one written seconds later under a burst
    // must still say when it happened.
    const api = pendingClient();
    const clock = new FakeClock(Date.parse('2026-11-27T12:00:00Z'));
    const { recorded } = burst(api, { maxInFlight: 1 }, 2, clock);
    await clock.advance(5_000);
    await api.answerOne();
    await api.answerOne();
    await Promise.all(recorded);
    expect(api.events.map((event) => event['eventTime'])).toEqual([
      '2026-11-27T12:00:00.000000Z',
      '2026-11-27T12:00:00.000000Z',
    ]);
  });

  it("drops a flooding namespace's newest waiting events, not a quieter namespace's, and serves namespaces in turn", async () => {
    // The queue is every team's: one tenant's thousand failing objects must not silence another.
    const api = pendingClient();
    const recorder = recorderOn(api, { maxInFlight: 1, maxQueued: 4 });
    const flood = Array.from({ length: 10 }, (_, i) =>
      recorder.record(objectNumber(i, 'team-b'), 'Warning', 'Failed', `team-b ${i}`),
    );
    // One written, four waiting, five dropped at once.
    await Promise.all(flood.slice(5));
    const victim = recorder.record(objectNumber(0, 'team-a'), 'Warning', 'Failed', 'team-a 0');
    // The queue was full: team-b's newest waiting event made room for it.
    await flood[4];
    for (let i = 0; i < 5; i += 1) await api.answerOne();
    await Promise.all([...flood, victim]);
    expect(api.created).toEqual(['team-b 0', 'team-b 1', 'team-a 0', 'team-b 2', 'team-b 3']);
  });

  it('drops the newcomer when its own namespace holds as many waiting events as any other', async () => {
    const api = pendingClient();
    const recorder = recorderOn(api, { maxInFlight: 1, maxQueued: 2 });
    const first = [
      recorder.record(objectNumber(0, 'team-a'), 'Normal', 'Created', 'team-a 0'),
      recorder.record(objectNumber(1, 'team-a'), 'Normal', 'Created', 'team-a 1'),
      recorder.record(objectNumber(0, 'team-b'), 'Normal', 'Created', 'team-b 0'),
    ];
    const newcomer = recorder.record(objectNumber(2, 'team-a'), 'Normal', 'Created', 'team-a 2');
    await newcomer;
    for (let i = 0; i < 3; i += 1) await api.answerOne();
    await Promise.all(first);
    expect(api.created).toEqual(['team-a 0', 'team-a 1', 'team-b 0']);
  });
});
