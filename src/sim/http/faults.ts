// Injected faults: requests whose method and route template match a rule get its
// latency, then its status (or a connection reset). Rules are tried in the order they
// were added; the first one that matches and fires (its `rate`) applies. `echoBody` makes
// the status answer quote the request body in its detail, as some proxies and validation
// layers do: the client must keep such text out of events, status and logs.
import { z } from 'zod';
import { newUuid } from './ids.js';

export const FaultRuleInput = z
  .object({
    method: z.string().min(1).optional(),
    route: z.string().min(1).optional(),
    status: z.number().int().min(100).max(599).optional(),
    latencyMs: z.number().int().min(0).max(600_000).optional(),
    reset: z.boolean().optional(),
    rate: z.number().min(0).max(1).optional(),
    count: z.number().int().min(1).optional(),
    retryAfterSeconds: z.number().int().min(0).optional(),
    echoBody: z.boolean().optional(),
  })
  .superRefine((rule, ctx) => {
    if (rule.status === undefined && rule.reset !== true && rule.latencyMs === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'a fault needs at least one of status, reset or latencyMs',
      });
    }
    if (rule.status !== undefined && rule.reset === true) {
      ctx.addIssue({ code: 'custom', path: ['reset'], message: 'reset and status exclude each other' });
    }
    if (rule.echoBody === true && rule.status === undefined) {
      ctx.addIssue({ code: 'custom', path: ['echoBody'], message: 'echoBody needs a status' });
    }
  });
export type FaultRuleInput = z.infer<typeof FaultRuleInput>;

export interface FaultAction {
  latencyMs: number;
  outcome:
    | { kind: 'status'; status: number; retryAfterSeconds?: number; echoBody: boolean }
    | { kind: 'reset' }
    | { kind: 'pass' };
}

interface FaultRule extends FaultRuleInput {
  id: string;
  remaining: number;
}

export class FaultRegistry {
  private rules: FaultRule[] = [];

  constructor(private readonly random: () => number = Math.random) {}

  add(input: FaultRuleInput): string {
    const id = newUuid();
    this.rules.push({
      ...input,
      method: input.method?.toUpperCase(),
      id,
      remaining: input.count ?? Number.POSITIVE_INFINITY,
    });
    return id;
  }

  clear(): void {
    this.rules = [];
  }

  get size(): number {
    return this.rules.length;
  }

  /** The fault to apply to this request, if any; consumes one use of a counted rule. */
  take(method: string, route: string): FaultAction | undefined {
    if (this.rules.length === 0) return undefined;
    for (const rule of this.rules) {
      if (rule.remaining <= 0) continue;
      if (rule.method !== undefined && rule.method !== method) continue;
      if (rule.route !== undefined && rule.route !== route) continue;
      if (rule.rate !== undefined && this.random() >= rule.rate) continue;
      rule.remaining--;
      const latencyMs = rule.latencyMs ?? 0;
      if (rule.reset === true) return { latencyMs, outcome: { kind: 'reset' } };
      if (rule.status !== undefined) {
        return {
          latencyMs,
          outcome: {
            kind: 'status',
            status: rule.status,
            retryAfterSeconds: rule.retryAfterSeconds,
            echoBody: rule.echoBody === true,
          },
        };
      }
      return { latencyMs, outcome: { kind: 'pass' } };
    }
    this.rules = this.rules.filter((rule) => rule.remaining > 0);
    return undefined;
  }
}
