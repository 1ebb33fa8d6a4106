// Counts of the calls the agent runtimes answered, by deployment, route, status and key
// fingerprint, so that tests can assert how a client used an agent (a smoke test's one
// call per revision, its retries, the key it sent) without the key itself.

export interface AgentCallCount {
  deployment_id: string;
  method: string;
  route: string;
  status: number;
  key_fingerprint: string | null;
  count: number;
}

export class AgentCallCounter {
  private total = 0;
  private readonly counts = new Map<string, AgentCallCount>();

  record(call: Omit<AgentCallCount, 'count'>): void {
    this.total++;
    const id = `${call.deployment_id} ${call.method} ${call.route} ${call.status} ${call.key_fingerprint ?? ''}`;
    const entry = this.counts.get(id);
    if (entry) entry.count++;
    else this.counts.set(id, { ...call, count: 1 });
  }

  reset(): void {
    this.total = 0;
    this.counts.clear();
  }

  snapshot(): { total: number; calls: AgentCallCount[] } {
    return { total: this.total, calls: [...this.counts.values()].map((c) => ({ ...c })) };
  }
}
