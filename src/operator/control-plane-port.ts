// Binds the reconciler's ControlPlanePort to the control-plane client. Every reconciler call
// is made with `waitForBudget: false`: when the budget is empty the call returns Throttled
// with the wait, and the reconcile requeues instead of holding a worker.
import type { ControlPlaneApi, ControlPlaneError, Result } from '../controlplane/client/index.js';
import type { ControlPlaneFailure, ControlPlanePort, Outcome } from '../reconcilers/agentdeployment/ports.js';
import { MAX_IDS_PER_LIST } from '../reconcilers/agentdeployment/observation/fleet-poller.js';

const NO_WAIT = { waitForBudget: false } as const;
/**
 * The budget paces requests evenly (its bucket holds a handful of tokens), so back-to-back
 * calls often find it empty for a few milliseconds. Waiting that long in place is cheaper
 * than a trip through the work queue; anything longer is returned as Throttled so that the
 * reconcile requeues and frees its worker.
 */
const SHORT_WAIT_MS = 100;
const SHORT_WAITS = 3;

async function patiently<T>(call: () => Promise<Result<T>>): Promise<Result<T>> {
  let result = await call();
  for (let attempt = 0; attempt < SHORT_WAITS; attempt += 1) {
    if (result.ok) return result;
    const error = result.error;
    // attempts > 0: the server itself said 429; its wait is not ours to shorten.
    if (error.kind !== 'Throttled' || error.attempts > 0 || error.retryAfterMs > SHORT_WAIT_MS) return result;
    await new Promise((resolve) => setTimeout(resolve, Math.max(error.retryAfterMs, 1)));
    result = await call();
  }
  return result;
}

export interface ControlPlanePortOptions {
  client: ControlPlaneApi;
  /** Requests per second allowed by the default row (count / window). */
  allowedRatePerSecond: number;
  /** Share of the budget free right now, 0..1. */
  budgetHeadroom: () => number;
}

export function controlPlanePort({
  client,
  allowedRatePerSecond,
  budgetHeadroom,
}: ControlPlanePortOptions): ControlPlanePort {
  return {
    createDeployment: async (request) =>
      outcome(await patiently(() => client.createDeployment(request, NO_WAIT))),
    getDeployment: async (id) => outcome(await patiently(() => client.getDeployment(id, NO_WAIT))),
    listDeploymentsByIds: async (ids) => {
      if (ids.length > MAX_IDS_PER_LIST)
        throw new RangeError(`at most ${MAX_IDS_PER_LIST} ids per list call`);
      const page = await patiently(() =>
        client.listDeployments({ deploymentIds: [...ids], limit: MAX_IDS_PER_LIST }, NO_WAIT),
      );
      return page.ok ? { ok: true, value: page.value.resources } : { ok: false, error: failure(page.error) };
    },
    findDeploymentsByName: async (name) => {
      // name_contains is a substring filter: page through and keep exact matches.
      const found = [];
      for (let offset = 0; ; offset += MAX_IDS_PER_LIST) {
        const page = await patiently(() =>
          client.listDeployments({ nameContains: name, limit: MAX_IDS_PER_LIST, offset }, NO_WAIT),
        );
        if (!page.ok) return { ok: false, error: failure(page.error) };
        found.push(...page.value.resources.filter((deployment) => deployment.name === name));
        if (page.value.resources.length < MAX_IDS_PER_LIST) return { ok: true, value: found };
      }
    },
    patchDeployment: async (id, patch) =>
      outcome(await patiently(() => client.patchDeployment(id, patch, NO_WAIT))),
    deleteDeployment: async (id) => outcome(await patiently(() => client.deleteDeployment(id, NO_WAIT))),
    getRevision: async (id, revisionId) =>
      outcome(await patiently(() => client.getRevision(id, revisionId, NO_WAIT))),
    allowedRatePerSecond: () => allowedRatePerSecond,
    budgetHeadroom,
  };
}

function outcome<T>(result: Result<T>): Outcome<T> {
  return result.ok ? result : { ok: false, error: failure(result.error) };
}

function failure(error: ControlPlaneError): ControlPlaneFailure {
  switch (error.kind) {
    case 'Throttled':
      return { kind: 'Throttled', message: error.message, retryAfterMs: error.retryAfterMs };
    case 'Transient':
      return { kind: 'Transient', message: error.message, unclear: error.unclear, status: error.status };
    case 'Terminal':
      return { kind: 'Terminal', message: error.message, status: error.status, detail: error.detail };
    case 'NotFound':
      return { kind: 'NotFound', message: error.message, status: 404, detail: error.detail };
    case 'Conflict':
      return { kind: 'Conflict', message: error.message, status: 409, detail: error.detail };
  }
}
