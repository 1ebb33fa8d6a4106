// What a written status says to the people reading events: entering a state worth a Warning,
// a smoke-test verdict, a revision that ended (with the rollout-time metric). Read off the
// status change itself, so that a pass which writes nothing says nothing, and a restarted
// operator never announces a revision twice.
import { isTerminalRevisionStatus } from './decide.js';
import type { AgentDeploymentView } from './object.js';
import type { Shell } from './pass-context.js';
import { revisionOutcome, smokeTestOutcome } from './status.js';
import { isStalled, type SyncState } from './sync-state.js';

/** Entering these states is worth a Warning event (once: on the transition). */
const WARN_ON_ENTER: ReadonlySet<SyncState['kind']> = new Set([
  'Rejected',
  'NameConflict',
  'InvalidSpec',
  'SecretNotFound',
  'ConnectionNotFound',
  'ConnectionNotReady',
  'ConnectionNotAllowed',
  'SmokeTestRefused',
]);

export function announce<Object extends AgentDeploymentView>(
  shell: Shell<Object>,
  object: Object,
  state: SyncState,
  status: NonNullable<Object['status']>,
): void {
  const { deps } = shell;
  const previous = object.status;
  const ready = previous?.conditions?.find((condition) => condition.type === 'Ready');
  const entered = ready?.reason !== state.kind || ready.message !== state.message;
  if (WARN_ON_ENTER.has(state.kind) && entered) {
    deps.kube.event(object, 'Warning', state.kind, state.message);
    if (isStalled(state)) deps.logger.info({ reason: state.kind, message: state.message }, 'stalled');
  }
  const verdict = smokeTestOutcome(previous, status);
  if (verdict?.result === 'Passed') {
    deps.kube.event(
      object,
      'Normal',
      'SmokeTestPassed',
      `Revision ${verdict.revisionId}: ${verdict.message}`,
    );
  } else if (verdict) {
    deps.kube.event(
      object,
      'Warning',
      'SmokeTestFailed',
      `Revision ${verdict.revisionId}: ${verdict.message}`,
    );
  }
  // Only a revision of a deployment the status already followed is a rollout seen to its end.
  // One that had ended when the object took the deployment over (an adoption, a recovered
  // create) is told by that write's own event: announcing it too repeated the adoption as a
  // `Deployed` event and counted a rollout that never happened here (an upgraded operator
  // adopting 10,000 objects wrote 10,000 of each). (ObserveOnly status follows no revision.)
  const followed = previous?.deploymentId !== undefined && previous.deploymentId === status.deploymentId;
  const outcome = followed ? revisionOutcome(previous, status, isTerminalRevisionStatus) : undefined;
  if (!outcome) return;
  const key = `${object.metadata.namespace}/${object.metadata.name}`;
  const started = shell.memory.get(key).rolloutStartedAt.get(outcome.revisionId);
  deps.metrics?.revisionFinished(
    outcome.status,
    started === undefined ? undefined : (deps.clock.now() - started) / 1000,
  );
  if (outcome.status === 'DEPLOYED') {
    deps.kube.event(object, 'Normal', 'Deployed', `Revision ${outcome.revisionId} is deployed`);
  } else {
    deps.kube.event(
      object,
      'Warning',
      'RevisionFailed',
      `Revision ${outcome.revisionId} ended ${outcome.status}`,
    );
  }
}

/** Warning events for what the spec asks that the API cannot express (once per spec). */
export function warnCannotClear<Object extends AgentDeploymentView>(
  shell: Shell<Object>,
  object: Object,
  warnings: readonly string[] | undefined,
): void {
  for (const message of warnings ?? []) shell.deps.kube.event(object, 'Warning', 'CannotClear', message);
}
