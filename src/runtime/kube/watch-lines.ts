// The events of a watch response, parsed in the response's 'data' handler and handed to the
// reader from a queue. Why not `for await` over the response and a generator per layer, as
// before: Node's async iterator of a readable stream costs a promise, a 'readable' event and a
// read() for every chunk, and an event that arrives alone (the usual case at rest: one object
// changed, one write of the server) is a chunk of its own, so that cost was paid per event.
// The reader still iterates; it waits only when the queue is empty. Figures in
// docs/benchmarks.md (twenty-second session).
//
// Backpressure: past HIGH_WATER parsed events waiting, the response is paused (TCP then slows
// the server), and resumed once the reader has taken them all.
import type http from 'node:http';
import { KubeApiError } from './errors.js';
import { LineSplitter } from './json-lines.js';
import { withoutManagedFields } from './managed-fields-text.js';

const HIGH_WATER = 1024;

export function watchLines(
  response: http.IncomingMessage,
  signal: AbortSignal | undefined,
  omitManagedFields: boolean,
): AsyncIterableIterator<unknown> {
  return new WatchLines(response, signal, omitManagedFields);
}

class WatchLines implements AsyncIterableIterator<unknown> {
  private queue: unknown[] = [];
  private head = 0;
  /** The server ended the stream cleanly, the signal aborted, or the reader stopped. */
  private ended = false;
  private failure: KubeApiError | undefined;
  private waiter: (() => void) | undefined;
  private released = false;
  private readonly splitter = new LineSplitter();
  private readonly onLine = (line: string): void => this.parse(line);
  private readonly onAbort = (): void => this.stop();

  constructor(
    private readonly response: http.IncomingMessage,
    private readonly signal: AbortSignal | undefined,
    private readonly omitManagedFields: boolean,
  ) {
    response.on('data', (chunk: Buffer) => {
      this.splitter.push(chunk, this.onLine);
      if (this.queue.length - this.head > HIGH_WATER) response.pause();
      this.wake();
    });
    response.on('end', () => {
      this.splitter.end(this.onLine);
      this.ended = true;
      this.wake();
    });
    response.on('error', (error: Error) => this.fail(`watch stream broken: ${error.message}`, error));
    // Closed without 'end': the server or the network broke the stream mid-way.
    response.on('close', () => {
      if (!this.ended) this.fail('watch stream broken');
    });
    if (signal?.aborted) this.stop();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<unknown> {
    return this;
  }

  async next(): Promise<IteratorResult<unknown>> {
    for (;;) {
      if (this.head < this.queue.length) return { value: this.take(), done: false };
      if (this.failure !== undefined) {
        this.release();
        throw this.failure;
      }
      if (this.ended) {
        this.release();
        return { value: undefined, done: true };
      }
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }

  /** The reader stopped early (a `break`): the connection is closed. */
  async return(): Promise<IteratorResult<unknown>> {
    this.stop();
    this.release();
    return { value: undefined, done: true };
  }

  private take(): unknown {
    const value = this.queue[this.head];
    this.queue[this.head] = undefined;
    this.head += 1;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      if (this.response.isPaused() && !this.ended) this.response.resume();
    }
    return value;
  }

  private parse(line: string): void {
    if (this.failure !== undefined || line.trim() === '') return;
    try {
      this.queue.push(JSON.parse(this.omitManagedFields ? withoutManagedFields(line) : line) as unknown);
    } catch (error) {
      this.fail(`watch stream broken: ${(error as Error).message}`, error);
    }
  }

  /** A quiet end: the caller's signal aborted, or the reader stopped. */
  private stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.response.destroy();
    this.wake();
  }

  /** An error for the reader, after the events parsed before it; none once the caller aborted. */
  private fail(message: string, cause?: unknown): void {
    if (this.ended || this.failure !== undefined || this.signal?.aborted) return;
    this.failure = cause instanceof KubeApiError ? cause : new KubeApiError(0, 'NetworkError', message);
    this.response.destroy();
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.response.destroy();
  }
}
