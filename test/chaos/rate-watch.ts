// How hard the run pressed against the rate limit: the emulator's request count read at
// each boundary of its fixed windows (multiples of the window length since the epoch, as
// the emulator aligns them), giving the requests per window. A printed figure, not an
// assertion: timer lateness and the admin call's round trip blur the boundaries by a few
// milliseconds, so a reading may count a request or two of the next window. Readings whose
// span strays more than SPAN_TOLERANCE_MS from the window (a late timer, a restart of the
// emulator in between) are dropped. The assertion on the budget is the count of the
// limiter's own 429s.
import type { Stack } from '../operator/harness.js';

const SPAN_TOLERANCE_MS = 50;

export class RateWatch {
  /** Requests counted in each completed window (every API request, any status). */
  readonly perWindow: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private last: { total: number; atMs: number } | undefined;
  private stopped = false;

  constructor(
    private readonly stack: Stack,
    private readonly windowMs: number,
  ) {}

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  get peak(): number {
    return Math.max(0, ...this.perWindow);
  }

  private schedule(): void {
    if (this.stopped) return;
    const now = Date.now();
    const nextBoundary = Math.ceil((now + 1) / this.windowMs) * this.windowMs;
    this.timer = setTimeout(() => void this.read(), nextBoundary - now);
  }

  private async read(): Promise<void> {
    const atMs = Date.now();
    try {
      const { total } = await this.stack.admin<{ total: number }>('GET', '/stats');
      const previous = this.last;
      if (previous && Math.abs(atMs - previous.atMs - this.windowMs) <= SPAN_TOLERANCE_MS) {
        this.perWindow.push(total - previous.total);
      }
      this.last = { total, atMs };
    } catch {
      // The emulator is restarting: no reading at this boundary, and none spanning it.
      this.last = undefined;
    }
    this.schedule();
  }
}
