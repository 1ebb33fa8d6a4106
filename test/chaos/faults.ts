// Random faults over time, in both emulators. Each emulator has at most one lasting fault
// at a time (a 429 burst, 5xx, latency, resets; failing kube requests, kube latency), with
// quiet gaps between them, plus instant faults (restarts, dropped watches, forced 410s).
//
// One lasting control-plane fault at a time is what lets the suite tell injected 429s from
// the emulator's own limiter 429s: the emulator counts both as `throttled`. A 429 burst is
// one rule with rate 1 on every route, and injected faults are answered before the rate
// limiter, so while a burst is on every 429 is injected; outside bursts, every 429 is the
// limiter's. The stats are read right before the rule is added and right after it is removed.
import type { Stack } from '../operator/harness.js';
import type { SeededRandom } from './random.js';

export type FaultKind =
  | 'cp-429-burst'
  | 'cp-5xx'
  | 'cp-latency'
  | 'cp-resets'
  | 'cp-restart'
  /** The control plane refuses the key (401) on every route for a while, then accepts it again. */
  | 'cp-401-window'
  | 'kube-fail-requests'
  | 'kube-latency'
  | 'kube-drop-watches'
  | 'kube-forced-410'
  | 'kube-restart'
  /** The API server fails every request (503 or 429) in the first seconds of a new operator process. */
  | 'kube-start-burst'
  /** Two replicas: every API request fails (503, 429 or 500) across the leader's lease renewals. */
  | 'kube-lease-renewal-burst'
  /** Two replicas: the operators start before the AgentDeployment CRD exists. */
  | 'crd-late'
  /** Two replicas: the leader is SIGKILLed while a rollout is under way. */
  | 'leader-sigkill'
  /** Two replicas: the leader is SIGSTOPped past its lease, then SIGCONTinued. */
  | 'leader-sigstop';

interface EmulatorStats {
  total: number;
  throttled: number;
}

export class FaultInjector {
  readonly counts = new Map<FaultKind, number>();
  /** 429s the emulator counted while a 429 burst was on: injected by construction. */
  injected429 = 0;
  /** Lasting kube faults run one at a time (the loop's and the start bursts), each cleared after. */
  private kubeLasting: Promise<void> = Promise.resolve();

  constructor(
    private readonly stack: Stack,
    private readonly isRunning: () => boolean,
  ) {}

  /** The control-plane loop: until the fault phase ends. Leaves no fault behind. */
  async runControlPlane(random: SeededRandom): Promise<void> {
    while (this.isRunning()) {
      await sleep(random.int(500, 3_000));
      if (!this.isRunning()) break;
      // Every run meets a window of refused keys at least once.
      const kind: FaultKind = !this.counts.has('cp-401-window')
        ? 'cp-401-window'
        : random.weighted({
            'cp-429-burst': 3,
            'cp-5xx': 3,
            'cp-latency': 2,
            'cp-resets': 2,
            'cp-restart': 1,
            'cp-401-window': 2,
          });
      this.count(kind);
      if (kind === 'cp-restart') {
        await this.stack.controlPlane.restart();
      } else if (kind === 'cp-429-burst') {
        // Some bursts carry Retry-After, some do not: the client handles both differently.
        const retryAfter = random.chance(0.5) ? { retryAfterSeconds: 1 } : {};
        await this.burst429({ status: 429, rate: 1, ...retryAfter }, random.int(500, 3_000));
      } else {
        await this.lasting(this.controlPlaneRule(kind, random), random.int(1_000, 5_000));
      }
    }
    await this.admin('DELETE', '/faults');
  }

  /** The kube loop: until the fault phase ends. Leaves no fault behind. */
  async runKube(random: SeededRandom): Promise<void> {
    const faults = this.stack.kube.faults;
    while (this.isRunning()) {
      await sleep(random.int(500, 3_000));
      if (!this.isRunning()) break;
      const kind = random.weighted({
        'kube-fail-requests': 3,
        'kube-latency': 2,
        'kube-drop-watches': 3,
        'kube-forced-410': 2,
        'kube-restart': 1,
      });
      this.count(kind);
      if (kind === 'kube-restart') {
        await this.stack.kube.restart();
      } else if (kind === 'kube-drop-watches') {
        faults.dropWatches();
      } else if (kind === 'kube-forced-410') {
        // The next watches (the reconnects the drop causes) answer 410 Expired: relist.
        faults.expireWatches(random.int(1, 3));
        faults.dropWatches();
      } else {
        const durationMs = random.int(1_000, 5_000);
        const rate = random.int(5, 30) / 100;
        const latencyMs = random.int(50, 800);
        await this.kubeExclusive(async () => {
          if (kind === 'kube-fail-requests') faults.failRequests({ rate, statuses: [500, 503, 429] });
          else faults.setLatency(latencyMs);
          await sleep(durationMs);
          faults.clear();
        });
      }
    }
    await this.kubeLasting;
    faults.clear();
  }

  /**
   * A start-up on a bad day: right after a new operator process starts, the API server fails
   * every request for `durationMs` (what froze the operator for good once: it took a 503 to
   * "is this CRD served?" as a yes and waited forever for that cache).
   */
  startBurst(durationMs: number, status: 503 | 429): Promise<void> {
    this.count('kube-start-burst');
    return this.kubeExclusive(async () => {
      this.stack.kube.faults.failRequests({ rate: 1, statuses: [status] });
      await sleep(durationMs);
      this.stack.kube.faults.clear();
    });
  }

  /**
   * The API server fails every request for `durationMs`, so the leader's renewals fail: a
   * short burst (under the 10 s renew deadline) must cost nothing; a long one makes the leader
   * step down before its lease can expire for the others. The kube emulator's faults cannot
   * pick a route, so the burst hits every request, the lease's included: harsher than a
   * renewal-only failure, and the same for the lease.
   */
  leaseRenewalBurst(durationMs: number, statuses: number[]): Promise<void> {
    this.count('kube-lease-renewal-burst');
    return this.kubeExclusive(async () => {
      this.stack.kube.faults.failRequests({ rate: 1, statuses });
      await sleep(durationMs);
      this.stack.kube.faults.clear();
    });
  }

  /** Counts a fault the caller carried out itself (a late CRD, a leader's kill or pause). */
  note(kind: FaultKind): void {
    this.count(kind);
  }

  private kubeExclusive(fault: () => Promise<void>): Promise<void> {
    const run = this.kubeLasting.then(fault);
    this.kubeLasting = run.catch(() => undefined);
    return run;
  }

  private controlPlaneRule(kind: FaultKind, random: SeededRandom): Record<string, unknown> {
    if (kind === 'cp-401-window') return { status: 401, rate: 1 };
    if (kind === 'cp-5xx') return { status: random.pick([500, 502, 503]), rate: random.int(10, 50) / 100 };
    if (kind === 'cp-latency') return { latencyMs: random.int(100, 1_500), rate: random.int(30, 100) / 100 };
    return { reset: true, rate: random.int(10, 40) / 100 };
  }

  private async lasting(rule: Record<string, unknown>, durationMs: number): Promise<void> {
    await this.admin('POST', '/faults', rule);
    await sleep(durationMs);
    await this.admin('DELETE', '/faults');
  }

  private async burst429(rule: Record<string, unknown>, durationMs: number): Promise<void> {
    const before = await this.admin<EmulatorStats>('GET', '/stats');
    await this.lasting(rule, durationMs);
    const after = await this.admin<EmulatorStats>('GET', '/stats');
    this.injected429 += after.throttled - before.throttled;
  }

  /**
   * An admin call, tried again when the socket it reused was closed by a restart of the
   * emulator a moment ago. Repeating one is harmless: adding a rule twice changes nothing
   * that the DELETE after it does not undo.
   */
  private async admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.stack.admin<T>(method, path, body);
      } catch (error) {
        if (attempt >= 5) throw error;
        await sleep(100 * attempt);
      }
    }
  }

  private count(kind: FaultKind): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
