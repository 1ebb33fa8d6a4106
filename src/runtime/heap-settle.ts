// Gives back the old-space pages a burst left behind. While an operator creates or adopts
// thousands of objects, the short-lived objects of in-flight requests live through two young
// collections and are promoted; when the burst ends they die where they lie, and the old
// space keeps its pages, each holding a few survivors. A full collection compacts only a few
// such pages (the operator's collections are made to compact more: see
// src/operator/compacting-collection.ts), and V8's memory reducer, which would compact the
// rest, waits for an idle mutator: an operator resyncing thousands of objects is never idle
// enough. Measured at 5,000 objects created through four connections (docs/benchmarks.md):
// 144 MiB of old space committed for 48 MiB used after the burst; successive full collections
// took it to 123, 95, 76, 63 MiB, and the process's RSS from 254 to 173 MiB. At 10,000
// settled objects a third of the old space stayed free (126 MiB committed, 84 used), which
// the first rule (half free) never settled.
//
// So the process checks its old space every `checkEveryMs`. When the free part of what it
// committed is both large (`minSlackBytes`) and a large share of it (`slackShare`), it runs up
// to `maxPasses` full collections, `passGapMs` apart so that reconciles run in between, and
// stops when a collection gave back less than `minGainBytes` or less than that is left to
// give. At most one settle per `cooldownMs`: a long burst costs a few collections a minute
// (tens of ms each at 10,000 objects), which V8 would mostly run anyway. A settle that gave
// back nothing (the free space is spread thinly over pages no collection evacuates) doubles
// the cooldown, up to `maxCooldownMs`, until one gives back again: a heap that cannot be
// settled is not collected every minute for nothing.
//
// The thresholds (16 MiB and 15% free) were 32 MiB and 25% until 2026-11-27: at 10,000
// settled objects (81 MiB used) a heap up to 113 MiB committed was left alone, and the old
// space committed after a settled run varied from 88 to 117 MiB from run to run, the largest
// part of the spread of the process's resident size at rest (docs/benchmarks.md).
//
// The collections need `gc`, which Node exposes only with --expose-gc (the image's entrypoint
// passes it); without it there is nothing to call and nothing runs.
import type { Clock, TimerHandle } from './clock.js';

export interface OldSpace {
  committedBytes: number;
  usedBytes: number;
}

export interface HeapSettleOptions {
  /** A full collection (Node's `gc` under --expose-gc). */
  collect: () => void;
  /** The old space's committed and used bytes now. */
  oldSpace: () => OldSpace;
  clock: Clock;
  checkEveryMs?: number;
  minSlackBytes?: number;
  slackShare?: number;
  minGainBytes?: number;
  maxPasses?: number;
  passGapMs?: number;
  cooldownMs?: number;
  /** The longest cooldown after settles in a row that gave nothing back. */
  maxCooldownMs?: number;
  /** Told after each settle: the old space before and after, and the collections it took. */
  onSettled?: (settle: { before: OldSpace; after: OldSpace; passes: number }) => void;
}

const MiB = 2 ** 20;

export class HeapSettler {
  private readonly checkEveryMs: number;
  private readonly minSlackBytes: number;
  private readonly slackShare: number;
  private readonly minGainBytes: number;
  private readonly maxPasses: number;
  private readonly passGapMs: number;
  private readonly cooldownMs: number;
  private readonly maxCooldownMs: number;
  /** The cooldown after the last settle: doubled after one that gave nothing back. */
  private currentCooldownMs: number;
  private timer: TimerHandle | undefined;
  private lastSettledAt = Number.NEGATIVE_INFINITY;
  private stopped = true;

  constructor(private readonly options: HeapSettleOptions) {
    this.checkEveryMs = options.checkEveryMs ?? 10_000;
    this.minSlackBytes = options.minSlackBytes ?? 16 * MiB;
    this.slackShare = options.slackShare ?? 0.15;
    this.minGainBytes = options.minGainBytes ?? 4 * MiB;
    this.maxPasses = options.maxPasses ?? 8;
    this.passGapMs = options.passGapMs ?? 1_000;
    this.cooldownMs = options.cooldownMs ?? 60_000;
    this.maxCooldownMs = Math.max(this.cooldownMs, options.maxCooldownMs ?? 600_000);
    this.currentCooldownMs = this.cooldownMs;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.checkEveryMs, () => this.check());
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Whether the old space holds enough free committed memory to be worth compacting. */
  private fragmented(space: OldSpace): boolean {
    const slack = space.committedBytes - space.usedBytes;
    return slack >= this.minSlackBytes && slack >= space.committedBytes * this.slackShare;
  }

  private check(): void {
    const now = this.options.clock.now();
    const before = this.options.oldSpace();
    if (now - this.lastSettledAt < this.currentCooldownMs || !this.fragmented(before)) {
      this.schedule(this.checkEveryMs, () => this.check());
      return;
    }
    this.lastSettledAt = now;
    this.pass(before, before, 1);
  }

  private pass(before: OldSpace, previous: OldSpace, passes: number): void {
    this.options.collect();
    const after = this.options.oldSpace();
    const gained = previous.committedBytes - after.committedBytes;
    const left = after.committedBytes - after.usedBytes;
    if (passes < this.maxPasses && gained >= this.minGainBytes && left >= this.minGainBytes) {
      this.schedule(this.passGapMs, () => this.pass(before, after, passes + 1));
      return;
    }
    const gaveBack = before.committedBytes - after.committedBytes >= this.minGainBytes;
    this.currentCooldownMs = gaveBack
      ? this.cooldownMs
      : Math.min(this.maxCooldownMs, this.currentCooldownMs * 2);
    this.options.onSettled?.({ before, after, passes });
    this.schedule(this.checkEveryMs, () => this.check());
  }

  private schedule(delayMs: number, next: () => void): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) next();
    }, delayMs);
  }
}
