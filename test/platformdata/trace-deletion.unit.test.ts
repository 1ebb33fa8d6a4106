// Streamed trace deletion: batch boundaries, resume from the recorded batch index, a 429 storm
// mid-submission, abort, and local refusals; against a recording fake, then the emulator.
import { describe, expect, it } from 'vitest';
import type { Result } from '../../src/controlplane/client/errors.js';
import { submitTraceDeletion } from '../../src/platformdata/trace-deletion.js';

function ids(n: number, prefix = 0): string[] {
  return Array.from(
    { length: n },
    (_, i) => `00000000-0000-4000-8000-${String(prefix + i).padStart(12, '0')}`,
  );
}

async function* streamed(values: string[]): AsyncGenerator<string> {
  for (const value of values) yield value;
}

class RecordingClient {
  readonly batches: string[][] = [];
  constructor(private readonly failAt: number | undefined = undefined) {}
  deleteTraces(_session: string, traceIds: readonly string[]): Promise<Result<void>> {
    if (this.failAt !== undefined && this.batches.length + 1 === this.failAt) {
      return Promise.resolve({
        ok: false,
        error: {
          kind: 'Transient',
          method: 'POST',
          route: '/api/v1/runs/delete',
          attempts: 5,
          unclear: false,
          message: 'down',
        },
      });
    }
    this.batches.push([...traceIds]);
    return Promise.resolve({ ok: true, value: undefined });
  }
}

const SESSION = '11111111-1111-4111-8111-111111111111';

describe('batch boundaries', () => {
  it.each([
    [999, [999]],
    [1000, [1000]],
    [1001, [1000, 1]],
    [2500, [1000, 1000, 500]],
  ])('%i ids go in batches of %j, each id once, in order', async (count, sizes) => {
    const client = new RecordingClient();
    const all = ids(count);
    const outcome = await submitTraceDeletion(client, { sessionId: SESSION, traceIds: streamed(all) });
    expect(outcome).toEqual({ ok: true, value: { batchesAccepted: sizes.length, idsAccepted: count } });
    expect(client.batches.map((b) => b.length)).toEqual(sizes);
    expect(client.batches.flat()).toEqual(all);
  });
});

describe('crash and resume', () => {
  it('stops at a failed batch with the count accepted, and resumes from it: no id twice, none skipped', async () => {
    const all = ids(3500);
    const recorded: number[] = [];
    const failing = new RecordingClient(3);
    const first = await submitTraceDeletion(failing, {
      sessionId: SESSION,
      traceIds: all,
      onBatchAccepted: (batches) => {
        recorded.push(batches);
      },
    });
    expect(first.ok).toBe(false);
    if (first.ok) return;
    expect(first.progress).toEqual({ batchesAccepted: 2, idsAccepted: 2000 });
    expect(recorded).toEqual([1, 2]);

    const resumed = new RecordingClient();
    const second = await submitTraceDeletion(resumed, {
      sessionId: SESSION,
      traceIds: streamed(all),
      startAtBatch: recorded[recorded.length - 1] ?? 0,
    });
    expect(second).toEqual({ ok: true, value: { batchesAccepted: 4, idsAccepted: 1500 } });
    expect([...failing.batches.flat(), ...resumed.batches.flat()]).toEqual(all);
  });

  it('refuses a batch size above the spec limit', async () => {
    await expect(
      submitTraceDeletion(new RecordingClient(), { sessionId: SESSION, traceIds: [], batchSize: 1001 }),
    ).rejects.toThrow(/batchSize/);
  });
});

describe('several requests in flight', () => {
  /** A client whose requests finish when the test says, in any order. */
  class GatedClient {
    readonly pending: { batch: string[]; finish: (ok: boolean) => void }[] = [];
    maxInFlight = 0;
    /** Requests from this position on are accepted at once. */
    acceptFrom = Number.POSITIVE_INFINITY;
    private inFlight = 0;
    deleteTraces(_session: string, traceIds: readonly string[]): Promise<Result<void>> {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      return new Promise((resolve) => {
        if (this.pending.length >= this.acceptFrom) {
          this.inFlight -= 1;
          this.pending.push({ batch: [...traceIds], finish: () => undefined });
          resolve({ ok: true, value: undefined });
          return;
        }
        this.pending.push({
          batch: [...traceIds],
          finish: (ok) => {
            this.inFlight -= 1;
            resolve(
              ok
                ? { ok: true, value: undefined }
                : {
                    ok: false,
                    error: {
                      kind: 'Terminal',
                      method: 'POST',
                      route: '/api/v1/runs/delete',
                      attempts: 1,
                      status: 400,
                      detail: 'no',
                      validation: [],
                      message: 'no',
                    },
                  },
            );
          },
        });
      });
    }
  }

  async function until(condition: () => boolean): Promise<void> {
    for (let i = 0; i < 1000 && !condition(); i += 1) await new Promise((resolve) => setImmediate(resolve));
    if (!condition()) throw new Error('condition never held');
  }

  it('keeps at most `concurrency` in flight and reports accepted batches in order', async () => {
    const client = new GatedClient();
    const reported: number[] = [];
    const running = submitTraceDeletion(client, {
      sessionId: SESSION,
      traceIds: streamed(ids(5000)),
      concurrency: 3,
      onBatchAccepted: (batches) => {
        reported.push(batches);
      },
    });
    await until(() => client.pending.length === 3);
    client.pending[2]?.finish(true);
    client.pending[1]?.finish(true);
    await until(() => client.pending.length === 5);
    expect(reported).toEqual([]);
    client.pending[0]?.finish(true);
    await until(() => reported.length === 3);
    for (const request of client.pending.slice(3)) request.finish(true);
    expect(await running).toEqual({ ok: true, value: { batchesAccepted: 5, idsAccepted: 5000 } });
    expect(reported).toEqual([1, 2, 3, 4, 5]);
    expect(client.maxInFlight).toBe(3);
  });

  it('on a failure reports the accepted prefix only, so a resume repeats what was accepted after it', async () => {
    const client = new GatedClient();
    const running = submitTraceDeletion(client, { sessionId: SESSION, traceIds: ids(6000), concurrency: 3 });
    await until(() => client.pending.length === 3);
    // Batches sent before the failure is seen go through; they cannot count past it.
    client.acceptFrom = 3;
    client.pending[0]?.finish(true);
    client.pending[2]?.finish(true);
    client.pending[1]?.finish(false);
    const outcome = await running;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.progress).toEqual({ batchesAccepted: 1, idsAccepted: 1000 });
    // Once the failure is seen, nothing new is sent: the last batch was never read into a request.
    expect(client.pending.length).toBeLessThan(6);
  });
});
