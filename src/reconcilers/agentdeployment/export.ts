// spec.export, decided: which ConfigMap the object should have written (how other workloads
// reach its agent), and the one write or condition that brings the namespace there. Pure: it
// reads what observe gathered (Observed.export) and returns at most one action.
//
// The rules: the operator writes only a ConfigMap it created (a controller ownerReference to
// this very object, uid and all); a ConfigMap of that name it did not create is never touched,
// and the Exported condition says so, naming the field and the rule, while everything else
// goes on. A pass whose ConfigMap already holds the facts writes nothing. Removing or renaming
// spec.export deletes only what this object owns.
import type { Deployment } from '../../controlplane/models/index.js';
import type { EventSpec } from './action.js';
import type { ConditionUpdate } from './conditions.js';
import type { Observed } from './observed.js';

/** The label that marks the exported ConfigMaps: the operator's cache of them is filtered by it. */
export const EXPORT_LABEL = 'app.kubernetes.io/managed-by';
export const EXPORT_LABEL_VALUE = 'agent-operator';
export const EXPORTED_CONDITION = 'Exported';

/** The keys of the exported ConfigMap: environment-variable names, so that envFrom takes them as they are. */
export const EXPORT_KEYS = {
  url: 'AGENT_URL',
  deploymentId: 'DEPLOYMENT_ID',
  deploymentName: 'DEPLOYMENT_NAME',
  activeRevisionId: 'ACTIVE_REVISION_ID',
  tenantId: 'TENANT_ID',
} as const;

/** A ConfigMap the operator may have exported, as its cache (or its own last write) shows it. */
export interface ExportedConfigMap {
  name: string;
  uid: string;
  resourceVersion: string;
  data: Record<string, string>;
}

/** What observe found for spec.export in the object's namespace. */
export interface ExportReading {
  /** spec.export.configMapName, if set. */
  target?: string;
  /** The ConfigMaps this object owns (controller ownerReference with its uid), whatever their name. */
  owned: readonly ExportedConfigMap[];
  /** A ConfigMap named `target` exists that this object does not own. */
  foreign: boolean;
}

export type ExportWrite =
  | { op: 'create'; name: string; data: Record<string, string> }
  | { op: 'update'; name: string; data: Record<string, string>; resourceVersion: string }
  /** Guarded by resourceVersion: a ConfigMap changed or replaced since is not deleted blindly. */
  | { op: 'delete'; name: string; uid: string; resourceVersion: string };

/** One step towards what spec.export asks: a write, the Exported condition (null: removed), an event. */
export interface ExportStep {
  write?: ExportWrite;
  /** Absent: the condition stays as it is; null: it is removed (spec.export is gone). */
  condition?: ConditionUpdate | null;
  event?: EventSpec;
}

/** The facts a client needs to call the agent; a fact not known yet is left out. */
export function exportData(deployment: Deployment): Record<string, string> {
  const data: Record<string, string> = {
    [EXPORT_KEYS.deploymentId]: deployment.id,
    [EXPORT_KEYS.deploymentName]: deployment.name,
    [EXPORT_KEYS.tenantId]: deployment.tenant_id,
  };
  const url = deployment.source_config.custom_url;
  if (url) data[EXPORT_KEYS.url] = url;
  if (deployment.active_revision_id) data[EXPORT_KEYS.activeRevisionId] = deployment.active_revision_id;
  return data;
}

export function conflictMessage(name: string): string {
  return `spec.export.configMapName: ConfigMap "${name}" already exists and was not created by this AgentDeployment; the operator never writes to an object it did not create: choose another name, or delete that ConfigMap`;
}

/** The export action `decide` takes, or undefined when the namespace is as spec.export asks. */
export function decideExport(o: Observed): ExportStep | undefined {
  const reading = o.export;
  if (reading === undefined) return undefined;
  const recorded = o.status.conditions?.find((condition) => condition.type === EXPORTED_CONDITION);
  const stale = reading.owned.find((configMap) => configMap.name !== reading.target);
  if (stale !== undefined) {
    return {
      write: { op: 'delete', name: stale.name, uid: stale.uid, resourceVersion: stale.resourceVersion },
      ...(reading.target === undefined && recorded !== undefined ? { condition: null } : {}),
      event: { type: 'Normal', reason: 'ExportDeleted', message: `Deleted ConfigMap ${stale.name}` },
    };
  }
  if (reading.target === undefined) {
    return recorded === undefined ? undefined : { condition: null };
  }
  const deployment = o.deployment.kind === 'present' ? o.deployment.deployment : undefined;
  // Only the facts of a deployment this object verifiably owns are handed out.
  if (
    deployment === undefined ||
    deployment.id !== o.ownership.deploymentId ||
    deployment.name !== o.object.deploymentName
  )
    return undefined;
  const name = reading.target;
  const settled = (condition: ConditionUpdate): boolean =>
    recorded !== undefined &&
    recorded.status === condition.status &&
    recorded.reason === condition.reason &&
    recorded.message === condition.message &&
    recorded.observedGeneration === o.object.generation;
  if (reading.foreign) {
    const condition: ConditionUpdate = {
      type: EXPORTED_CONDITION,
      status: 'False',
      reason: 'ExportConflict',
      message: conflictMessage(name),
    };
    if (settled(condition)) return undefined;
    return {
      condition,
      event: { type: 'Warning', reason: 'ExportConflict', message: conflictMessage(name) },
    };
  }
  const data = exportData(deployment);
  const condition: ConditionUpdate = {
    type: EXPORTED_CONDITION,
    status: 'True',
    reason: 'Exported',
    message: `ConfigMap ${name} holds ${Object.keys(data).sort().join(', ')}`,
  };
  const current = reading.owned.find((configMap) => configMap.name === name);
  if (current !== undefined && sameData(current.data, data)) {
    return settled(condition) ? undefined : { condition };
  }
  const write: ExportWrite =
    current === undefined
      ? { op: 'create', name, data }
      : { op: 'update', name, data, resourceVersion: current.resourceVersion };
  const verb = current === undefined ? 'Wrote' : 'Updated';
  return {
    write,
    condition,
    event: { type: 'Normal', reason: 'Exported', message: `${verb} ConfigMap ${name}` },
  };
}

function sameData(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
