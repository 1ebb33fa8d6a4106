import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  BucketRateLimiter,
  ItemExponentialRateLimiter,
  defaultControllerRateLimiter,
} from '../../src/runtime/workqueue/rate-limiter.js';
import { WorkQueue } from '../../src/runtime/workqueue/queue.js';
import { FakeClock, flush } from './support/fake-clock.js';

function queueWith(clock = new FakeClock(), registry?: Registry): WorkQueue {
  return new WorkQueue({
    name: 'test',
    clock,
    registry,
    rateLimiter: defaultControllerRateLimiter(clock, { random: () => 0 }),
  });
}

describe('WorkQueue', () => {
  it('holds a key once however often it is added', async () => {
    const queue = queueWith();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.length).toBe(0);
  });

  it('never hands a key being processed to a second worker, and reprocesses it after done', async () => {
    const queue = queueWith();
    queue.add('a');
    const first = await queue.get();
    expect(first).toBe('a');
    queue.add('a');
    expect(queue.length).toBe(0);
    let second: string | undefined;
    void queue.get().then((key) => (second = key));
    await flush();
    expect(second).toBeUndefined();
    queue.done('a');
    await flush();
    expect(second).toBe('a');
  });

  it('a key re-added many times while processing is processed once more, not many', async () => {
    const queue = queueWith();
    queue.add('a');
    await queue.get();
    queue.add('a');
    queue.add('a');
    queue.add('a');
    queue.done('a');
    expect(queue.length).toBe(1);
    await queue.get();
    queue.done('a');
    expect(queue.length).toBe(0);
  });

  it('backs off a failing key exponentially from 5 ms and caps at 1000 s', () => {
    const limiter = new ItemExponentialRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000_000, jitter: 0 });
    const delays = Array.from({ length: 30 }, () => limiter.when('k'));
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(delays[27]).toBe(1_000_000);
    expect(Math.max(...delays)).toBe(1_000_000);
    expect(limiter.when('other')).toBe(5);
  });

  it('adds jitter within its share of the delay', () => {
    const limiter = new ItemExponentialRateLimiter({
      baseDelayMs: 100,
      maxDelayMs: 10_000,
      jitter: 0.1,
      random: () => 0.5,
    });
    expect(limiter.when('k')).toBe(105);
    expect(limiter.when('k')).toBe(210);
  });

  it('forget resets the backoff of one key', () => {
    const clock = new FakeClock();
    const queue = queueWith(clock);
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    expect(queue.numRequeues('a')).toBe(3);
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
  });

  it('rate-limited requeues wait out their backoff', async () => {
    const clock = new FakeClock();
    const queue = queueWith(clock);
    queue.addRateLimited('a'); // 5 ms
    queue.addRateLimited('a'); // 10 ms: the earlier 5 ms wins
    await clock.advance(4);
    expect(queue.length).toBe(0);
    await clock.advance(1);
    expect(queue.length).toBe(1);
  });

  it('the overall bucket limits a storm across keys to its rate after the burst', () => {
    const clock = new FakeClock();
    const bucket = new BucketRateLimiter({ qps: 10, burst: 100 }, clock);
    const delays = Array.from({ length: 102 }, () => bucket.when());
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(delays[100]).toBeCloseTo(100);
    expect(delays[101]).toBeCloseTo(200);
  });

  it('addAfter keeps the earliest time requested', async () => {
    const clock = new FakeClock();
    const queue = queueWith(clock);
    queue.addAfter('a', 1000);
    queue.addAfter('a', 100);
    queue.addAfter('a', 5000);
    await clock.advance(99);
    expect(queue.length).toBe(0);
    await clock.advance(1);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe('a');
    queue.done('a');
    await clock.advance(10_000);
    expect(queue.length).toBe(0);
  });

  it('releases many delayed keys in the order they fall due, each once', async () => {
    const clock = new FakeClock();
    const queue = queueWith(clock);
    const delays = Array.from({ length: 200 }, (_, i) => ((i * 7919) % 1000) + 1);
    delays.forEach((delay, i) => queue.addAfter(`k${i}`, delay));
    // Rescheduled earlier: the later entry left behind must not bring the key back.
    queue.addAfter('k0', 1);
    const released: string[] = [];
    for (let elapsed = 0; elapsed < 1_200; elapsed += 1) {
      await clock.advance(1);
      while (queue.length > 0) {
        const key = await queue.get();
        if (key === undefined) break;
        released.push(key);
        queue.done(key);
      }
    }
    const expected = delays
      .map((delay, i) => ({ key: `k${i}`, at: i === 0 ? 1 : delay }))
      .sort((a, b) => a.at - b.at || Number(a.key.slice(1)) - Number(b.key.slice(1)));
    expect(new Set(released).size).toBe(200);
    expect(released.map((key) => expected.find((e) => e.key === key)?.at)).toEqual(expected.map((e) => e.at));
    expect(queue.waitingCount).toBe(0);
  });

  it('a delayed key that is also added now is processed now and once', async () => {
    const clock = new FakeClock();
    const queue = queueWith(clock);
    queue.addAfter('a', 100);
    queue.add('a');
    expect(queue.length).toBe(1);
    await clock.advance(100);
    expect(queue.length).toBe(1);
  });

  it('shutdown hands out nothing more and waits for work in flight', async () => {
    const clock = new FakeClock();
    const queue = queueWith(clock);
    queue.add('a');
    queue.add('b');
    const key = await queue.get();
    let drained: boolean | undefined;
    void queue.shutdown(10_000).then((d) => (drained = d));
    expect(await queue.get()).toBeUndefined();
    queue.add('c');
    expect(queue.length).toBe(0);
    await flush();
    expect(drained).toBeUndefined();
    queue.done(key ?? '');
    await flush();
    expect(drained).toBe(true);
  });

  it('shutdown wakes idle workers and gives up draining after its timeout', async () => {
    const clock = new FakeClock();
    const queue = queueWith(clock);
    const idle = queue.get();
    queue.add('a');
    expect(await idle).toBe('a');
    const waiting = queue.get();
    let drained: boolean | undefined;
    void queue.shutdown(500).then((d) => (drained = d));
    expect(await waiting).toBeUndefined();
    await clock.advance(499);
    expect(drained).toBeUndefined();
    await clock.advance(1);
    expect(drained).toBe(false);
  });

  it('publishes the workqueue metrics under controller-runtime names', async () => {
    const clock = new FakeClock();
    const registry = new Registry();
    const queue = queueWith(clock, registry);
    queue.add('a');
    queue.add('b');
    queue.add('a');
    await clock.advance(2000);
    await queue.get();
    queue.addRateLimited('b');
    await clock.advance(3000);
    const text = await registry.metrics();
    expect(text).toContain('workqueue_adds_total{name="test"} 2');
    expect(text).toContain('workqueue_depth{name="test"} 1');
    expect(text).toContain('workqueue_retries_total{name="test"} 1');
    expect(text).toContain('workqueue_unfinished_work_seconds{name="test"} 3');
    expect(text).toContain('workqueue_longest_running_processor_seconds{name="test"} 3');
    expect(text).toMatch(/workqueue_queue_duration_seconds_count\{name="test"\} 1/);
    queue.done('a');
    expect(await registry.metrics()).toMatch(/workqueue_work_duration_seconds_sum\{name="test"\} 3\b/);
  });
});

describe('WorkQueue sharded fairly', () => {
  /** A queue sharded by the key's first segment (`eu/o1`: `eu`), each turn as long as `turnSizeOf` says. */
  const shardedQueue = (turnSizeOf?: (key: string) => number): WorkQueue =>
    new WorkQueue({
      name: 'test',
      clock: new FakeClock(),
      shardOf: (key) => key.split('/')[0] ?? '',
      ...(turnSizeOf === undefined ? {} : { shardTurnSizeOf: turnSizeOf }),
    });

  it('serves shards in turn: a key of a quiet shard does not wait behind a busy one', async () => {
    const queue = shardedQueue();
    for (let i = 0; i < 1000; i += 1) queue.add(`eu/o${i}`);
    queue.add('us/a');
    queue.add('us/b');
    expect(queue.length).toBe(1002);
    const taken = [];
    for (let i = 0; i < 5; i += 1) taken.push(await queue.get());
    expect(taken).toEqual(['eu/o0', 'us/a', 'eu/o1', 'us/b', 'eu/o2']);
  });

  it("hands a shard as many keys in a row as its turn's size, asked of the key that begins the turn", async () => {
    const asked: string[] = [];
    const queue = shardedQueue((key) => {
      asked.push(key);
      return key.startsWith('us/') ? 3 : 1;
    });
    for (let i = 0; i < 10; i += 1) queue.add(`eu/o${i}`);
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) queue.add(`us/${name}`);
    const taken = [];
    for (let i = 0; i < 12; i += 1) taken.push(await queue.get());
    expect(taken).toEqual([
      'eu/o0',
      ...['us/a', 'us/b', 'us/c'],
      'eu/o1',
      ...['us/d', 'us/e', 'us/f'],
      'eu/o2',
      // The US shard has one key left: its turn ends with it, and the EU shard, alone, is served.
      'us/g',
      'eu/o3',
      'eu/o4',
    ]);
    expect(asked).toEqual(['eu/o0', 'us/a', 'eu/o1', 'us/d', 'eu/o2', 'us/g']);
  });

  it('gives a turn of one key for a size that is not a whole number of at least one', async () => {
    for (const size of [0, -2, Number.NaN, Number.POSITIVE_INFINITY, 0.4]) {
      const queue = shardedQueue((key) => (key.startsWith('us/') ? size : 1));
      for (const key of ['us/a', 'us/b', 'eu/a', 'eu/b']) queue.add(key);
      const taken = [await queue.get(), await queue.get(), await queue.get(), await queue.get()];
      expect(taken, `size ${size}`).toEqual(['us/a', 'eu/a', 'us/b', 'eu/b']);
    }
  });

  it('rounds a fractional turn size down', async () => {
    const queue = shardedQueue((key) => (key.startsWith('us/') ? 2.9 : 1));
    for (const key of ['us/a', 'us/b', 'us/c', 'eu/a', 'eu/b']) queue.add(key);
    const taken = [];
    for (let i = 0; i < 5; i += 1) taken.push(await queue.get());
    expect(taken).toEqual(['us/a', 'us/b', 'eu/a', 'us/c', 'eu/b']);
  });

  it('asks no size of a shard served alone', async () => {
    const asked: string[] = [];
    const queue = shardedQueue((key) => {
      asked.push(key);
      return 5;
    });
    for (const key of ['us/a', 'us/b', 'us/c']) queue.add(key);
    expect([await queue.get(), await queue.get(), await queue.get()]).toEqual(['us/a', 'us/b', 'us/c']);
    expect(asked).toEqual([]);
  });

  it("serves a shard's flows in turn, one key each, within the shard's own turns", async () => {
    // Keys `namespace/connection-n`: shards are connections, flows are namespaces.
    const queue = new WorkQueue({
      name: 'test',
      clock: new FakeClock(),
      shardOf: (key) => key.split('/')[1]?.split('-')[0] ?? '',
      shardTurnSizeOf: (key) => (key.includes('/us-') ? 2 : 1),
      flowOf: (key) => key.split('/')[0] ?? '',
    });
    for (let i = 0; i < 100; i += 1) queue.add(`flood/us-${i}`);
    for (const key of ['team-a/us-1', 'team-a/eu-1', 'team-c/us-1', 'flood/eu-1']) queue.add(key);
    const taken = [];
    for (let i = 0; i < 8; i += 1) taken.push(await queue.get());
    expect(taken).toEqual([
      ...['flood/us-0', 'team-a/us-1'],
      'team-a/eu-1',
      ...['team-c/us-1', 'flood/us-1'],
      'flood/eu-1',
      ...['flood/us-2', 'flood/us-3'],
    ]);
  });

  it('without shards it is one FIFO', async () => {
    const queue = queueWith();
    for (const key of ['eu/1', 'eu/2', 'us/1']) queue.add(key);
    expect([await queue.get(), await queue.get(), await queue.get()]).toEqual(['eu/1', 'eu/2', 'us/1']);
  });
});

describe('WorkQueue priorities', () => {
  it('serves every normal key before any key added at low priority', async () => {
    const queue = queueWith();
    for (const key of ['settled-1', 'settled-2', 'settled-3']) queue.add(key, 'low');
    queue.add('new');
    expect(queue.length).toBe(4);
    expect(await queue.get()).toBe('new');
    queue.add('edited');
    expect([await queue.get(), await queue.get(), await queue.get(), await queue.get()]).toEqual([
      'edited',
      'settled-1',
      'settled-2',
      'settled-3',
    ]);
    expect(queue.length).toBe(0);
  });

  it('promotes a low key that is added normally, and hands it out once', async () => {
    const queue = queueWith();
    queue.add('a', 'low');
    queue.add('b', 'low');
    queue.add('b');
    queue.add('b', 'low');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('b');
    expect(await queue.get()).toBe('a');
    expect(queue.length).toBe(0);
    queue.done('b');
    queue.done('a');
    let next: string | undefined;
    void queue.get().then((key) => (next = key));
    await flush();
    expect(next).toBeUndefined();
  });

  it('requeues a key re-added while processing at the priority it was re-added with', async () => {
    const queue = queueWith();
    queue.add('a');
    expect(await queue.get()).toBe('a');
    queue.add('a', 'low');
    queue.done('a');
    queue.add('b');
    expect([await queue.get(), await queue.get()]).toEqual(['b', 'a']);
    queue.done('a');
    queue.done('b');
    // Raised while it was processing: it comes back at normal priority.
    queue.add('c', 'low');
    queue.add('a');
    expect(await queue.get()).toBe('a');
    queue.add('a', 'low');
    queue.add('a');
    queue.done('a');
    expect([await queue.get(), await queue.get()]).toEqual(['a', 'c']);
  });
});
