// Every timing of the AgentDeployment reconciler and its poller, in one place. The operator's
// flags (--poll-interval, --resync-period) override two of them; tests shorten the rest.

export interface ReconcilerTimings {
  /** How often an in-flight deployment is refreshed by the batched poller (--poll-interval). */
  inflightPollMs: number;
  /** Steady-state resync period (--resync-period); the poller jitters it by ±10%. */
  resyncPeriodMs: number;
  /**
   * How often a deployment that builds on push (spec.sourceConfig.buildOnPush) is listed, so
   * that a revision a push made is seen within seconds rather than at the next resync.
   */
  pushPollMs: number;
  /** Shortest pause between two revision GETs of one object. */
  minRevisionPollMs: number;
  /** Share of the rate budget that revision GETs may use, summed over all objects. */
  revisionPollBudgetShare: number;
  /** Revision GETs are optional: they are made only while at least this share of the budget is free. */
  revisionPollMinHeadroom: number;
  /** Pause between two checks while a deletion completes. */
  deletionPollMs: number;
  /**
   * A rejected create or update is tried again only when the spec or a Secret changes, or
   * after this re-check delay (doubling per failed re-check, up to `stalledRecheckMaxMs`):
   * the cause may be outside the object (a listener that appears later, a name freed).
   */
  stalledRecheckMs: number;
  stalledRecheckMaxMs: number;
  /** Clock skew allowed between the operator and the control plane when matching a deployment's created_at to a recorded create intent. */
  createIntentSkewMs: number;
  /**
   * A create is sent right after its intent is recorded (each attempt records a new one), so
   * a deployment created later than this after the intent is not that create's: a forged
   * intent cannot reach back to any unmanaged deployment of the name.
   */
  createIntentWindowMs: number;
  /** A missing Secret is looked at again after this long even without a Secret event. */
  secretWaitMs: number;
  /** A failed smoke-test call (the agent warming up) is retried after this, doubling per failure... */
  smokeTestRetryMs: number;
  /** ...up to this, while spec.smokeTest.timeoutSeconds lasts. */
  smokeTestRetryMaxMs: number;
}

export const DEFAULT_TIMINGS: Readonly<ReconcilerTimings> = {
  inflightPollMs: 2_000,
  resyncPeriodMs: 10 * 60_000,
  pushPollMs: 10_000,
  minRevisionPollMs: 2_000,
  revisionPollBudgetShare: 0.2,
  revisionPollMinHeadroom: 0.5,
  deletionPollMs: 2_000,
  stalledRecheckMs: 2 * 60_000,
  stalledRecheckMaxMs: 30 * 60_000,
  createIntentSkewMs: 30_000,
  createIntentWindowMs: 10 * 60_000,
  secretWaitMs: 60_000,
  smokeTestRetryMs: 1_000,
  smokeTestRetryMaxMs: 8_000,
};
