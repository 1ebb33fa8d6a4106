// What the AgentDeployment reconciler is given by its set-up: ports to the world (Kubernetes,
// the control planes, deployed agents, the fleet, the orphan records) and the domain rules
// that read a spec (specProblem, desiredState, namedIds, deploymentName).
import type { Logger } from 'pino';
import type { DeploymentCreateRequest, Secret } from '../../controlplane/models/index.js';
import type { AgentTrust } from '../../egress/agent-credential.js';
import type { Clock } from '../../runtime/clock.js';
import type { ReconcilerTimings } from './defaults.js';
import type { DomainMetrics } from './domain-metrics.js';
import type { ExportPort } from './export-port.js';
import type { AgentDeploymentView } from './object.js';
import type { FleetPoller } from './observation/fleet-poller.js';
import type { ObservationCache } from './observation/observation-cache.js';
import type {
  AgentCallPort,
  ControlPlanePort,
  FleetPort,
  KubePort,
  LaneResolution,
  OrphanRecordsPort,
  ResolvedIds,
} from './ports.js';

export interface ReconcilerDeps<Object extends AgentDeploymentView> {
  /** The default connection's lane: the port, cache and poller of objects without spec.connectionRef. */
  controlPlane: ControlPlanePort;
  kube: KubePort<Object>;
  fleet: FleetPort;
  observations: ObservationCache;
  poller: FleetPoller;
  /** The lane of the object's connection; absent: every object uses the default lane above. */
  connection?: (object: Object) => LaneResolution;
  /** Why the object's spec cannot be understood (it slipped past validation), or undefined. */
  specProblem: (object: Object) => string | undefined;
  /** The wire request the spec asks for, with resolved secret values and named ids. */
  desiredState: (object: Object, secrets: Secret[], ids: ResolvedIds) => DeploymentCreateRequest;
  /** The listener and integration the spec names by name (listenerRef, integrationRef), if any. */
  namedIds?: (object: Object) => { listener?: string; integration?: string };
  deploymentName: (object: Object) => string;
  logger: Logger;
  clock: Pick<Clock, 'now'>;
  metrics?: DomainMetrics;
  timings?: Partial<ReconcilerTimings>;
  /** Calls to deployed agents (spec.smokeTest); without it a smoke test fails, saying so. */
  agents?: AgentCallPort;
  /** Where the default connection's key may be sent besides its control plane (a lane's own trust wins). */
  agentTrust?: AgentTrust;
  /** Enqueues a key: a background smoke-test call that ended wakes its object. */
  wake?: (key: string) => void;
  /** Why adopting an existing deployment is not permitted in `namespace` (the rule), or undefined when it is. Default: permitted everywhere. */
  adoptionForbidden?: (namespace: string) => string | undefined;
  /** spec.export's ConfigMaps (cache and writes); without it spec.export is not acted on. */
  exports?: ExportPort;
  /** Who orphaned which deployment: recorded before an orphaning object lets go, read for adoption. */
  orphans?: OrphanRecordsPort;
}
