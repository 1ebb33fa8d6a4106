// What must hold once faults stop: the model the workload kept, compared with the API
// server and with the control plane's own record (its admin API, not what the operator
// reports). The convergence checks are eventual: they are retried until they all hold or
// the generous settle timeout ends, and then every divergence is listed by object.
import type { Deployment } from '../../src/controlplane/models/index.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { EVENTS, NAMESPACE, isReady, type AgentDeploymentObject, type Stack } from '../operator/harness.js';
import { sleep } from './faults.js';
import { CLASH_NAMESPACE, SECRET_ENV_NAME, type TrackedObject, type Workload } from './workload.js';

export interface InvariantResult {
  name: string;
  ok: boolean;
  /** What diverged (empty when it holds); never a secret value. */
  problems: string[];
}

export const CONVERGENCE_INVARIANTS = [
  'every existing object converged (Ready at its generation, active revision, image and secrets)',
  'exactly one deployment per existing object',
  'no deployment left for objects deleted with Delete',
  'objects deleted with Orphan left their deployment',
  'deleted objects are gone from the API server',
  'no deployment that no object accounts for',
  'rejected objects are Stalled (Rejected) and have no deployment',
  'an object claiming another’s name is Stalled (NameConflict) and owns nothing',
  'suspended objects say Suspended',
  'no event is repeated (one Deployed per revision, across restarts)',
] as const;

/** Waits until every convergence invariant holds, or the timeout ends; returns the last look. */
export async function awaitConvergence(
  stack: Stack,
  workload: Workload,
  timeoutMs: number,
): Promise<{ results: InvariantResult[]; waitedMs: number; atFaultStop: InvariantResult[] }> {
  const started = Date.now();
  let results = await checkConvergence(stack, workload);
  const atFaultStop = results;
  while (results.some((result) => !result.ok) && Date.now() - started < timeoutMs) {
    await sleep(1_000);
    results = await checkConvergence(stack, workload).catch((error: unknown) => [
      { name: 'reading the state', ok: false, problems: [String(error)] },
    ]);
  }
  return { results, waitedMs: Date.now() - started, atFaultStop };
}

export async function checkConvergence(stack: Stack, workload: Workload): Promise<InvariantResult[]> {
  const deployments = await stack.deployments();
  const byName = new Map<string, Deployment[]>();
  for (const deployment of deployments) {
    byName.set(deployment.name, [...(byName.get(deployment.name) ?? []), deployment]);
  }
  const list = await stack.client.list<AgentDeploymentObject>(AGENT_DEPLOYMENTS, { namespace: NAMESPACE });
  const objects = new Map(list.items.map((object) => [object.metadata.name, object]));
  const clashList = await stack.client.list<AgentDeploymentObject>(AGENT_DEPLOYMENTS, {
    namespace: CLASH_NAMESPACE,
  });
  const clashObjects = new Map(clashList.items.map((object) => [object.metadata.name, object]));

  const [
    converged,
    onePerObject,
    deleteRemoved,
    orphanKept,
    deletedGone,
    noStrays,
    rejectedStalled,
    clashStalled,
    suspendedShown,
    noRepeats,
  ] = CONVERGENCE_INVARIANTS;
  const problems = new Map<string, string[]>(CONVERGENCE_INVARIANTS.map((name) => [name, []]));
  const report = (invariant: string, problem: string): void => {
    problems.get(invariant)?.push(problem);
  };

  for (const tracked of workload.objects.values()) {
    const found = byName.get(tracked.name) ?? [];
    const object = objects.get(tracked.name);
    if (!tracked.deleted) {
      if (found.length !== 1) report(onePerObject, `${tracked.name}: ${found.length} deployments`);
      const deployment = found[0];
      if (!object) report(converged, `${tracked.name}: the object is missing from the API server`);
      else if (!deployment) report(converged, `${tracked.name}: no deployment on the control plane`);
      else if (tracked.suspended) {
        const reconciling = object.status?.conditions?.find((c) => c.type === 'Reconciling');
        if (reconciling?.reason !== 'Suspended') {
          report(suspendedShown, `${tracked.name}: Reconciling reason ${reconciling?.reason ?? 'absent'}`);
        }
      } else {
        for (const problem of convergenceProblems(tracked, object, deployment, workload.secretValues)) {
          report(converged, `${tracked.name}: ${problem}`);
        }
      }
      continue;
    }
    if (object) {
      report(
        deletedGone,
        `${tracked.name}: still present (deletionTimestamp ${object.metadata.deletionTimestamp ?? 'unset'})`,
      );
    }
    if (tracked.policy === 'Delete' && found.length > 0) {
      report(deleteRemoved, `${tracked.name}: ${found.map((d) => `${d.id} (${d.status})`).join(', ')}`);
    }
    if (tracked.policy === 'Orphan') {
      const kept = found.filter((d) => d.status !== 'AWAITING_DELETE');
      const describe = `${found.length} deployments (${found.map((d) => `${d.id} ${d.status}`).join(', ')})`;
      if (tracked.deploymentIdAtDeletion !== undefined) {
        // It had a deployment when it was deleted: exactly that one must remain.
        if (found.length !== 1 || kept[0]?.id !== tracked.deploymentIdAtDeletion) {
          report(
            orphanKept,
            `${tracked.name}: had ${tracked.deploymentIdAtDeletion} when deleted; now ${describe}`,
          );
        }
      } else if (found.length > 1 || kept.length !== found.length) {
        // Deleted before its deployment was known: the operator may have created one in the
        // meantime (then it stays), but never more than one, and never deletes it.
        report(orphanKept, `${tracked.name}: had no deployment when deleted; now ${describe}`);
      }
    }
  }
  for (const [name, found] of byName) {
    if (!workload.objects.has(name))
      report(noStrays, `${name}: ${found.length} deployment(s) no object made`);
  }
  for (const stalled of workload.stalled) {
    const object =
      stalled.namespace === NAMESPACE ? objects.get(stalled.name) : clashObjects.get(stalled.name);
    const label = `${stalled.namespace}/${stalled.name}`;
    if (stalled.deleted) {
      if (object) report(deletedGone, `${label}: still present`);
      continue;
    }
    const invariant = stalled.reason === 'Rejected' ? rejectedStalled : clashStalled;
    const condition = object?.status?.conditions?.find((c) => c.type === 'Stalled');
    const rivalAlive = stalled.reason === 'Rejected' || objects.has(stalled.name);
    if (!object) report(invariant, `${label}: missing from the API server`);
    else if (rivalAlive && (condition?.status !== 'True' || condition.reason !== stalled.reason)) {
      report(invariant, `${label}: Stalled=${condition?.status ?? 'absent'} ${condition?.reason ?? ''}`);
    }
    if (stalled.reason === 'Rejected' && (byName.get(stalled.name) ?? []).length > 0) {
      report(rejectedStalled, `${label}: has a deployment`);
    }
    const owned = object?.status?.ownership?.deploymentId;
    if (stalled.reason === 'NameConflict' && rivalAlive && owned !== undefined) {
      report(clashStalled, `${label}: records ${owned} as its own`);
    }
  }
  for (const problem of await repeatedEvents(stack)) report(noRepeats, problem);
  return CONVERGENCE_INVARIANTS.map((name) => {
    const list = problems.get(name) ?? [];
    return { name, ok: list.length === 0, problems: list };
  });
}

function convergenceProblems(
  tracked: TrackedObject,
  object: AgentDeploymentObject,
  deployment: Deployment,
  secretValues: ReadonlyMap<string, string>,
): string[] {
  const problems: string[] = [];
  const status = object.status;
  const ready = object.status?.conditions?.find((c) => c.type === 'Ready');
  if (!isReady(object)) {
    problems.push(
      `not Ready at generation ${object.metadata.generation ?? '?'} (Ready=${ready?.status ?? 'absent'} ${ready?.reason ?? ''}, observedGeneration ${status?.observedGeneration ?? 'unset'})`,
    );
  }
  if (status?.deploymentId !== deployment.id) {
    problems.push(`status.deploymentId ${status?.deploymentId ?? 'unset'} != control plane ${deployment.id}`);
  }
  if (status?.activeRevisionId !== deployment.active_revision_id) {
    problems.push(
      `status.activeRevisionId ${status?.activeRevisionId ?? 'unset'} != control plane active_revision_id ${deployment.active_revision_id ?? 'null'}`,
    );
  }
  if (deployment.active_revision_id !== deployment.latest_revision_id) {
    problems.push(`the latest revision ${deployment.latest_revision_id ?? 'null'} is not active yet`);
  }
  const image = deployment.source_revision_config.image_uri;
  if (image !== tracked.image)
    problems.push(`control plane image ${image ?? 'null'} != spec ${tracked.image}`);
  const expected = tracked.secretName
    ? [{ name: SECRET_ENV_NAME, value: secretValues.get(tracked.secretName) ?? '' }]
    : [];
  const actual = deployment.secrets.map((s) => ({ name: s.name, value: s.value }));
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    // Names only: secret values never reach a report.
    const stale = actual.length === expected.length && actual.every((s, i) => s.name === expected[i]?.name);
    problems.push(
      stale
        ? `control plane secret ${SECRET_ENV_NAME} holds an old value of ${tracked.secretName ?? '?'}`
        : `control plane secrets [${actual.map((s) => s.name).join(', ')}] != spec [${expected.map((s) => s.name).join(', ')}]`,
    );
  }
  return problems;
}

/** Deployed events that say the same thing twice: a restart that repeated history. */
async function repeatedEvents(stack: Stack): Promise<string[]> {
  type Event = KubeObject & {
    reason?: string;
    note?: string;
    regarding?: { name?: string };
    series?: { count?: number };
  };
  const events = await stack.client.list<Event>(EVENTS, { namespace: NAMESPACE });
  const seen = new Map<string, number>();
  for (const event of events.items) {
    if (event.reason !== 'Deployed') continue;
    const key = `${event.regarding?.name ?? '?'}: ${event.note ?? ''}`;
    seen.set(key, (seen.get(key) ?? 0) + (event.series?.count ?? 1));
  }
  return [...seen].filter(([, count]) => count > 1).map(([key, count]) => `${key} (${count} times)`);
}
