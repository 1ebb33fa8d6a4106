// The BASELINE strategy the operator is measured against: what a straightforward
// controller-runtime operator does when it follows each object the way the official
// Terraform provider waits for a deployment. Per object: POST the deployment, then GET its
// latest revision every 5 s until DEPLOYED, then write Ready. Every control-plane call first
// takes a token from controller-runtime's default overall limiter (a 10 qps token bucket
// with a burst of 100, `workqueue.DefaultControllerRateLimiter`), then goes through the same
// control-plane client as the operator (which would also keep it under the published limit).
// It is deliberately naive, not broken: one object's failure only delays that object.
import type { ControlPlaneApi } from '../../../src/controlplane/client/index.js';
import type { DeploymentCreateRequest } from '../../../src/controlplane/models/index.js';
import { BucketRateLimiter } from '../../../src/runtime/workqueue/rate-limiter.js';
import { systemClock } from '../../../src/runtime/clock.js';

/** Terraform's wait loop polls a deployment's revision every 5 s. */
export const REVISION_POLL_MS = 5_000;
/** controller-runtime's DefaultControllerRateLimiter: BucketRateLimiter{10 qps, burst 100}. */
export const DEFAULT_CONTROLLER_QPS = 10;
export const DEFAULT_CONTROLLER_BURST = 100;

export interface NaiveObject {
  key: string;
  generation: number;
  request: DeploymentCreateRequest;
}

export interface NaiveReconcilerDeps {
  controlPlane: ControlPlaneApi;
  /** Writes Ready=True at `generation` to the object's status. */
  markReady: (key: string, generation: number, message: string) => Promise<void>;
  onError?: (key: string, message: string) => void;
}

interface Progress {
  deploymentId?: string;
  revisionId?: string;
  done: boolean;
}

export class NaiveReconciler {
  private readonly limiter = new BucketRateLimiter(
    { qps: DEFAULT_CONTROLLER_QPS, burst: DEFAULT_CONTROLLER_BURST },
    systemClock,
  );
  private readonly progress = new Map<string, Progress>();
  private stopped = false;

  constructor(private readonly deps: NaiveReconcilerDeps) {}

  /** Starts following an object (once per key). */
  add(object: NaiveObject): void {
    if (this.progress.has(object.key)) return;
    this.progress.set(object.key, { done: false });
    void this.loop(object);
  }

  stop(): void {
    this.stopped = true;
  }

  private async loop(object: NaiveObject): Promise<void> {
    while (!this.stopped) {
      const delayMs = await this.reconcile(object).catch((error: unknown) => {
        this.deps.onError?.(object.key, error instanceof Error ? error.message : String(error));
        return REVISION_POLL_MS;
      });
      if (delayMs === undefined) return;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }

  /** One pass; the delay until the next, or undefined when the object is Ready. */
  private async reconcile(object: NaiveObject): Promise<number | undefined> {
    const progress = this.progress.get(object.key) ?? { done: false };
    await this.token();
    if (!progress.deploymentId) {
      const created = await this.deps.controlPlane.createDeployment(object.request);
      if (!created.ok) throw new Error(created.error.message);
      progress.deploymentId = created.value.id;
      progress.revisionId = created.value.latest_revision_id ?? undefined;
      return REVISION_POLL_MS;
    }
    if (!progress.revisionId) throw new Error(`deployment ${progress.deploymentId} has no revision`);
    const revision = await this.deps.controlPlane.getRevision(progress.deploymentId, progress.revisionId);
    if (!revision.ok) throw new Error(revision.error.message);
    if (revision.value.status !== 'DEPLOYED') return REVISION_POLL_MS;
    await this.deps.markReady(object.key, object.generation, `Revision ${progress.revisionId} is deployed`);
    progress.done = true;
    return undefined;
  }

  /** Waits for the overall bucket, as a rate-limited requeue waits in the work queue. */
  private async token(): Promise<void> {
    const waitMs = this.limiter.when();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}
