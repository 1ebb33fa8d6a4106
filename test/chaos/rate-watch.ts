// How hard the run pressed against the rate limit: the emulator's request count read at
// each boundary of its fixed windows (multiples of the window length since the epoch, as
// the emulator aligns them), giving the requests per window. A printed figure, not an
// assertion: timer lateness blurs the boundaries by a few milliseconds. The assertion on
// the budget is the count of the limiter's own 429s.
import type { Stack } from '../operator/harness.js';

export class RateWatch {
  /** Requests counted in each completed window (every API request, any status). */
  readonly perWindow: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastTotal: number | undefined;
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
    try {
      const { total } = await this.stack.admin<{ total: number }>('GET', '/stats');
      if (this.lastTotal !== undefined) this.perWindow.push(total - this.lastTotal);
      this.lastTotal = total;
    } catch {
      // The emulator is restarting: this window merges into the next reading's.
    }
    this.schedule();
  }
}
