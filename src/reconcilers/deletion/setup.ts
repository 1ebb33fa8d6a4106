// The deletion controllers (TraceDeletion, ExampleDeletion), each set up from its own folder on
// the platform access they share: a platform data client per connection on the connection's
// own rate budget, and one stop signal, so that submissions end after their batch in flight.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ConnectionRegistry } from '../../connections/registry.js';
import type { LoadConnectionKey } from '../../connections/key-before-pass.js';
import type { RateBudget } from '../../controlplane/budget/index.js';
import type { EventRecorder } from '../../runtime/events/recorder.js';
import type { KubeClient } from '../../runtime/kube/client.js';
import type { Manager } from '../../runtime/manager/manager.js';
import type { Informer } from '../../runtime/manager/informer.js';
import type { AgentDeploymentObject } from '../agentdeployment/kube-port.js';
import { setUpTracingProjects } from '../tracingproject/setup.js';
import { deploymentName } from '../../api/agentdeployment/resource.js';
import { setUpExampleDeletions } from '../exampledeletion/setup.js';
import { setUpTraceDeletions, type TraceVerificationTimings } from '../tracedeletion/setup.js';
import { DeletionPlatforms, type DefaultPlatformSettings } from './platform-access.js';
import type { DeletionTimings } from './ports.js';

export { EXAMPLE_DELETIONS, EXAMPLE_DELETION_CONTROLLER } from '../exampledeletion/setup.js';
export { TRACE_DELETIONS, TRACE_DELETION_CONTROLLER } from '../tracedeletion/setup.js';

/** The operator's settings the deletions read (the operator's configuration has these fields). */
export interface DeletionSettings extends DefaultPlatformSettings, TraceVerificationTimings {
  namespaces: string[];
  concurrency: number;
  /** A shard's selector (--shard): only the deletions it matches are cached and reconciled. */
  labelSelector?: string;
}

export interface DeletionsOptions {
  kube: KubeClient;
  logger: Logger;
  registry: Registry;
  recorder: EventRecorder;
  config: DeletionSettings;
  connections: ConnectionRegistry;
  /** The default connection's budget: deletions on the operator's own key spend it too. */
  defaultBudget: RateBudget;
  timings?: Partial<DeletionTimings>;
  /** Asked right before each platform request (the lease is held); false: nothing is sent. */
  mayCall?: () => boolean;
  /** Reads an object's connection key before its pass (Connections.loadKeySecretOf). */
  loadConnectionKey: LoadConnectionKey;
  /**
   * The AgentDeployment cache: with it, each owned deployment's tracing project is recorded in
   * its status, and a TraceDeletion may name the project by its AgentDeployment.
   */
  agentDeployments?: Informer<AgentDeploymentObject>;
}

export interface Deletions {
  /** Call before stopping the manager: submissions end after their batch in flight. */
  beginStop(): void;
  close(): Promise<void>;
}

/** Adds the deletion controllers to `manager`. */
export function setUpDeletions(manager: Manager, options: DeletionsOptions): Deletions {
  const { config } = options;
  const stopping = new AbortController();
  const platforms = new DeletionPlatforms(
    options.connections,
    config,
    options.defaultBudget,
    options.logger,
    options.mayCall,
  );
  const context = {
    manager,
    kube: options.kube,
    logger: options.logger,
    registry: options.registry,
    recorder: options.recorder,
    namespaces: config.namespaces,
    ...(config.labelSelector === undefined ? {} : { labelSelector: config.labelSelector }),
    concurrency: config.concurrency,
    platformFor: platforms.platformFor.bind(platforms),
    loadConnectionKey: options.loadConnectionKey,
    stopping: stopping.signal,
    ...(options.timings === undefined ? {} : { timings: options.timings }),
  };
  const agentDeployments = options.agentDeployments;
  setUpTraceDeletions(
    context,
    config,
    agentDeployments === undefined
      ? undefined
      : {
          agentDeployment: (namespace, name) => agentDeployments.store.get(`${namespace}/${name}`),
          claimsOf: (name) => agentDeployments.store.list().filter((o) => deploymentName(o) === name).length,
          sessionsFor: platforms.sessionsFor.bind(platforms),
        },
  );
  if (agentDeployments !== undefined)
    setUpTracingProjects(context, agentDeployments, platforms.sessionsForReading.bind(platforms));
  setUpExampleDeletions(context);
  return {
    beginStop: () => stopping.abort(),
    close: () => platforms.close(),
  };
}
