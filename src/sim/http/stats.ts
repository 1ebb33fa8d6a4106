// Request counters by method, route template, status and key fingerprint, for tests and
// benchmarks that assert how a client behaved (retries, throttling, call counts).

export interface RouteCount {
  method: string;
  route: string;
  status: number;
  key_fingerprint: string | null;
  count: number;
}

export interface StatsSnapshot {
  total: number;
  throttled: number;
  byRoute: RouteCount[];
}

/** Status recorded for a request whose connection an injected fault reset. */
export const RESET_STATUS = 0;

export class StatsCounter {
  private total = 0;
  private throttled = 0;
  private readonly counts = new Map<string, RouteCount>();

  record(method: string, route: string, status: number, keyFingerprint: string | null): void {
    this.total++;
    if (status === 429) this.throttled++;
    const id = `${method} ${route} ${status} ${keyFingerprint ?? ''}`;
    const entry = this.counts.get(id);
    if (entry) entry.count++;
    else this.counts.set(id, { method, route, status, key_fingerprint: keyFingerprint, count: 1 });
  }

  reset(): void {
    this.total = 0;
    this.throttled = 0;
    this.counts.clear();
  }

  snapshot(): StatsSnapshot {
    return {
      total: this.total,
      throttled: this.throttled,
      byRoute: [...this.counts.values()].map((c) => ({ ...c })),
    };
  }
}
