// Carries out one export step of `decide` (export.ts): the ConfigMap write, then the Exported
// condition (written only when it changed), then the event. The pass then looks again, so the
// rest of the ladder (the deployment's own status) follows in the next pass.
import { failure, type Performed } from '../../runtime/reconcile/pass.js';
import { requeueAfter, requeueNow } from '../../runtime/reconcile/result.js';
import { publishStatus } from '../../runtime/reconcile/status-publisher.js';
import type { Action } from './action.js';
import { setConditions, withoutCondition, type ConditionUpdate } from './conditions.js';
import { EXPORTED_CONDITION, conflictMessage } from './export.js';
import { generationOf, type AgentDeploymentView } from './object.js';
import type { PassContext, PassFailure, Shell } from './pass-context.js';
import { statusChanged } from './status.js';

/** After a create met a stranger's ConfigMap the names watch had not shown yet: look again soon, not at once. */
const TAKEN_RECHECK_MS = 1_000;

export async function performExport<Object extends AgentDeploymentView>(
  shell: Shell<Object>,
  pass: PassContext<Object>,
  step: Extract<Action, { kind: 'export' }>,
): Promise<Performed<PassFailure<Object>>> {
  const { deps } = shell;
  const { object, signal } = pass;
  const exports = deps.exports;
  if (exports === undefined) return requeueNow;
  let { condition, event } = step;
  let taken = false;
  if (step.write !== undefined) {
    const owner = {
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      uid: object.metadata.uid ?? '',
    };
    const written = await exports.write(owner, step.write, signal);
    if (!written.ok) {
      if (written.kind === 'moved') return requeueNow;
      if (written.kind === 'failed') {
        return failure({
          object,
          error: {
            kind: 'Transient',
            message: `spec.export: writing ConfigMap "${step.write.name}" failed: ${written.message}`,
            ...(written.status === undefined ? {} : { status: written.status }),
          },
        });
      }
      taken = true;
      const message = conflictMessage(step.write.name);
      condition = { type: EXPORTED_CONDITION, status: 'False', reason: 'ExportConflict', message };
      event = { type: 'Warning', reason: 'ExportConflict', message };
    }
  }
  if (condition !== undefined) {
    const published = await publishCondition(shell, object, condition, signal);
    if (!published.ok) return failure({ object, error: published.error });
  }
  if (event !== undefined) deps.kube.event(object, event.type, event.reason, event.message);
  return taken ? requeueAfter(TAKEN_RECHECK_MS) : requeueNow;
}

async function publishCondition<Object extends AgentDeploymentView>(
  shell: Shell<Object>,
  object: Object,
  condition: ConditionUpdate | null,
  signal: AbortSignal,
): Promise<{ ok: true } | { ok: false; error: { kind: 'Conflict' | 'Transient'; message: string } }> {
  const previous = object.status ?? {};
  const conditions =
    condition === null
      ? withoutCondition(previous.conditions ?? [], EXPORTED_CONDITION)
      : setConditions(
          previous.conditions,
          [condition],
          generationOf(object),
          new Date(shell.deps.clock.now()),
        );
  const published = await publishStatus(shell.deps.kube, object, { ...previous, conditions }, signal, {
    changed: statusChanged,
  });
  if (published.kind !== 'failed') return { ok: true };
  return {
    ok: false,
    error: {
      kind: published.outcome.reason === 'Conflict' ? 'Conflict' : 'Transient',
      message: published.outcome.message,
    },
  };
}
