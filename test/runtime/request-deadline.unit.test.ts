// A request's deadline: it aborts on time or with its caller, holds one listener on the
// caller's (long-lived) signal however many requests are in flight, and once released holds
// neither a timer nor that listener.
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

  it('aborts every request in flight when their common caller aborts', () => {
    const caller = new AbortController();
    const deadlines = Array.from({ length: 20 }, () => new RequestDeadline(caller.signal, 30_000));
    deadlines[3]?.release();
    caller.abort(new Error('stopping'));
    expect(deadlines.filter((deadline) => deadline.signal.aborted)).toHaveLength(19);
    expect(deadlines[3]?.signal.aborted).toBe(false);
    for (const deadline of deadlines) deadline.release();
  });

  it("holds one listener on the caller's signal for all its requests, and none once they are released", () => {
    vi.useFakeTimers();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const caller = new AbortController();
    const deadlines = Array.from({ length: 100 }, () => new RequestDeadline(caller.signal, 30_000));
    expect(vi.getTimerCount()).toBe(100);
    // Not 100: a controller's signal carries every request of its passes at once, and Node warns
    // of a leak past 10 listeners.
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    for (const deadline of deadlines) deadline.release();
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    caller.abort();
    expect(deadlines.some((deadline) => deadline.signal.aborted)).toBe(false);
    process.off('warning', onWarning);
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  });

  it('calls its followers once when it ends, none after they let go, and none when it already ended', () => {
    vi.useFakeTimers();
    const deadline = new RequestDeadline(undefined, 1_000);
    const heard: string[] = [];
    deadline.onAbort((reason) => heard.push(`first: ${(reason as DOMException).name}`));
    const unfollow = deadline.onAbort(() => heard.push('gone'));
    unfollow();
    expect(deadline.aborted).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(deadline.aborted).toBe(true);
    expect((deadline.reason as DOMException).name).toBe('TimeoutError');
    expect(heard).toEqual(['first: TimeoutError']);
    deadline.onAbort(() => heard.push('late'));
    // A signal asked for after the end is born aborted, with the same reason.
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(heard).toEqual(['first: TimeoutError']);
  });

  it("follows the caller's abort without a signal of its own being asked for", () => {
    const caller = new AbortController();
    const deadline = new RequestDeadline(caller.signal, 30_000);
    const reasons: unknown[] = [];
    deadline.onAbort((reason) => reasons.push(reason));
    caller.abort(new Error('lease lost'));
    expect(reasons.map((reason) => (reason as Error).message)).toEqual(['lease lost']);
    expect(deadline.aborted).toBe(true);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
