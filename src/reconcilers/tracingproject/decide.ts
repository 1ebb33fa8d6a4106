// Whether an AgentDeployment's tracing project must be looked up (pure). The control plane
// creates a project of the deployment's name with the deployment; the operator records its id
// in status.tracingProject once, and looks again only when it is missing or names another
// deployment name. Only an object that owns its deployment (status.ownership for its own uid)
// is looked up: an adopted-by-name or observed one has no project of its own to record.
import { deploymentName } from '../../api/agentdeployment/resource.js';
import { ownedDeploymentId, type AgentDeploymentView } from '../agentdeployment/object.js';

export type TracingProjectStep = { kind: 'none' } | { kind: 'lookup'; name: string };

export function decideTracingProject(object: AgentDeploymentView): TracingProjectStep {
  if (object.metadata.deletionTimestamp !== undefined) return { kind: 'none' };
  const owned = ownedDeploymentId(object);
  // The deployment exists once status shows the owned id: its project was created with it.
  if (owned === undefined || object.status?.deploymentId !== owned) return { kind: 'none' };
  const name = deploymentName({ metadata: object.metadata, spec: { name: object.spec.name } });
  const recorded = object.status.tracingProject;
  if (recorded !== undefined && recorded.name === name) return { kind: 'none' };
  return { kind: 'lookup', name };
}
