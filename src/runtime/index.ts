// The generic controller runtime: everything the operator needs to watch Kubernetes objects
// and reconcile them, and nothing about agents.
export { systemClock, sleep, type Clock, type TimerHandle } from './clock.js';
export { Backoff, backoffDelay, type BackoffOptions, type RandomSource } from './backoff.js';
export * from './kube/objects.js';
export * from './kube/resource.js';
export * from './kube/errors.js';
export {
  KubeClient,
  MERGE_PATCH,
  JSON_PATCH,
  type ListOptions,
  type WatchOptions,
  type WriteOptions,
  type DeleteOptions,
} from './kube/client.js';
export { KubeConfigTransport, type KubeTransport, type KubeRequest } from './kube/transport.js';
export { loadKubeConfig, type KubeConfigSource } from './kube/kubeconfig.js';
export {
  loadClusterAccess,
  kubeClientFrom,
  type ClusterAccess,
  type ClusterAccessSource,
} from './kube/cluster-access.js';
export { IndexedStore, type IndexFunction, type StoreChange } from './cache/store.js';
export type { ResourceEventHandler } from './reflector/handlers.js';
export { clientListWatch, type ListWatchSource, type ListWatchScope } from './reflector/list-watch.js';
export { Reflector, type ReflectorOptions, type ReflectorHealth } from './reflector/reflector.js';
export { WorkQueue, type WorkQueueOptions } from './workqueue/queue.js';
export * from './workqueue/rate-limiter.js';
export {
  Controller,
  type ControllerOptions,
  type Reconcile,
  type StopOptions,
} from './controller/controller.js';
export {
  awaitChange,
  backoff,
  failed,
  requeueAfter,
  requeueNow,
  type PassFailure,
  type ReconcileResult,
} from './reconcile/result.js';
export {
  LeaderElector,
  type LeaderElectorOptions,
  type LeaderElectionTimings,
} from './leaderelection/leader-elector.js';
export {
  KubeLeaseStore,
  LEASE_TYPE,
  type LeaseStore,
  type LeaderRecord,
  type StoredLease,
} from './leaderelection/lease-store.js';
export { formatMicroTime, parseMicroTime } from './leaderelection/micro-time.js';
export {
  EventRecorder,
  referenceTo,
  type ObjectReference,
  type EventType,
  type EventsApi,
} from './events/recorder.js';
export { Informer, type InformerOptions, type ResourceInformerOptions } from './manager/informer.js';
export {
  Manager,
  watchOf,
  type ManagerOptions,
  type LeaderElectionConfig,
  type Watch,
} from './manager/manager.js';
export type { HealthSnapshot, ManagerRole, ControllerHealth } from './manager/health.js';
