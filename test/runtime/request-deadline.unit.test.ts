// A request's deadline: it aborts on time or with its caller, and once released it holds
// neither a timer nor a listener on the caller's (long-lived) signal.
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestDeadline } from '../../src/runtime/request-deadline.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('RequestDeadline', () => {
  it('aborts with a TimeoutError when the time is up', () => {
    vi.useFakeTimers();
    const deadline = new RequestDeadline(undefined, 1_000);
    vi.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it("follows the caller's abort, with the caller's reason, and at once when already aborted", () => {
    const caller = new AbortController();
    const deadline = new RequestDeadline(caller.signal, 30_000);
    caller.abort(new Error('leadership lost'));
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).message).toBe('leadership lost');
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);

    const late = new RequestDeadline(caller.signal, 30_000);
    expect(late.signal.aborted).toBe(true);
    expect((late.signal.reason as Error).message).toBe('leadership lost');
  });

  it("once released, keeps no timer and no listener on the caller's signal", () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const deadlines = Array.from({ length: 100 }, () => new RequestDeadline(caller.signal, 30_000));
    expect(vi.getTimerCount()).toBe(100);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(100);
    for (const deadline of deadlines) deadline.release();
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    caller.abort();
    expect(deadlines.some((deadline) => deadline.signal.aborted)).toBe(false);
  });
});
