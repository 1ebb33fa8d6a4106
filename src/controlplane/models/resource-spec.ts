// ResourceSpec (docs/api/control-plane.md, "Resource spec"): every field of the spec, including
// the ones marked "do not use", because the operator must be able to carry any of them.
// Bounds stated by the spec are part of the field's schema; defaults (limits of 2x the
// request, queue_* from their base field) are applied by the server, not here.
import { z } from 'zod';
import { Container, LocalObjectReference, StringMap, Volume, VolumeMount } from './kubernetes-shapes.js';

export const CPU_REQUEST_BOUNDS = { min: 0.1, max: 8 } as const;
export const CPU_LIMIT_BOUNDS = { min: 0.1, max: 16 } as const;

const cpuRequest = z.number().min(CPU_REQUEST_BOUNDS.min).max(CPU_REQUEST_BOUNDS.max);
const cpuLimit = z.number().min(CPU_LIMIT_BOUNDS.min).max(CPU_LIMIT_BOUNDS.max);
const anyCpu = z.number();
const int = z.number().int();

export const ResourceSpec = z.object({
  min_scale: int.nullish(),
  max_scale: int.nullish(),
  cpu: cpuRequest.nullish(),
  cpu_limit: cpuLimit.nullish(),
  memory_mb: int.nullish(),
  memory_limit_mb: int.nullish(),
  queue_min_scale: int.nullish(),
  queue_max_scale: int.nullish(),
  queue_cpu: cpuRequest.nullish(),
  queue_cpu_limit: cpuLimit.nullish(),
  queue_memory_mb: int.nullish(),
  queue_memory_limit_mb: int.nullish(),
  // Marked "do not use" by the spec; carried so that nothing a user sets is lost.
  orchestrator_cpu: anyCpu.nullish(),
  orchestrator_cpu_limit: anyCpu.nullish(),
  orchestrator_memory_mb: int.nullish(),
  orchestrator_memory_limit_mb: int.nullish(),
  orchestrator_min_scale: int.nullish(),
  orchestrator_max_scale: int.nullish(),
  executor_cpu: anyCpu.nullish(),
  executor_cpu_limit: anyCpu.nullish(),
  executor_memory_mb: int.nullish(),
  executor_memory_limit_mb: int.nullish(),
  cache_cpu: cpuRequest.nullish(),
  cache_cpu_limit: cpuLimit.nullish(),
  cache_memory_mb: int.nullish(),
  labels: StringMap.nullish(),
  annotations: StringMap.nullish(),
  service_account_name: z.string().nullish(),
  image_pull_secrets: z.array(LocalObjectReference).nullish(),
  volumes: z.array(Volume).nullish(),
  volume_mounts: z.array(VolumeMount).nullish(),
  init_containers: z.array(Container).nullish(),
  sidecars: z.array(Container).nullish(),
  db_cpu: anyCpu.nullish(),
  db_cpu_limit: anyCpu.nullish(),
  db_memory_mb: int.nullish(),
  db_memory_limit_mb: int.nullish(),
  db_storage_gi: int.nullish(),
  db_max_connections: int.nullish(),
});

export type ResourceSpec = z.infer<typeof ResourceSpec>;

/** The CPU fields the spec says are rounded to one decimal place. */
export const CPU_FIELDS = [
  'cpu',
  'cpu_limit',
  'queue_cpu',
  'queue_cpu_limit',
  'orchestrator_cpu',
  'orchestrator_cpu_limit',
  'executor_cpu',
  'executor_cpu_limit',
  'cache_cpu',
  'cache_cpu_limit',
  'db_cpu',
  'db_cpu_limit',
] as const satisfies readonly (keyof ResourceSpec)[];
