// The emulator's transcription of ResourceSpec, from the control-plane API document
// ("ResourceSpec" and "Limits"): every field nullable; CPU in cores with the stated bounds,
// memory in MB, the "do not use" fields accepted without bounds. Defaults (a limit of 2x its
// request, queue_* from the base field) are the server's work: resource-spec-defaults.ts.
import { z } from 'zod';
import { Container, LocalObjectReference, Volume, VolumeMount } from './kubernetes-shapes.js';

/** "cpu, queue_cpu, cache_cpu: 0.1 to 8 cores"; "cpu_limit, queue_cpu_limit, cache_cpu_limit: 0.1 to 16 cores". */
const cpuRequest = z.number().min(0.1).max(8);
const cpuLimit = z.number().min(0.1).max(16);
const cores = z.number();
const integer = z.number().int();
const stringToString = z.record(z.string(), z.string());

export const ResourceSpec = z.object({
  min_scale: integer.nullish(),
  max_scale: integer.nullish(),
  cpu: cpuRequest.nullish(),
  cpu_limit: cpuLimit.nullish(),
  memory_mb: integer.nullish(),
  memory_limit_mb: integer.nullish(),
  queue_min_scale: integer.nullish(),
  queue_max_scale: integer.nullish(),
  queue_cpu: cpuRequest.nullish(),
  queue_cpu_limit: cpuLimit.nullish(),
  queue_memory_mb: integer.nullish(),
  queue_memory_limit_mb: integer.nullish(),
  orchestrator_cpu: cores.nullish(),
  orchestrator_cpu_limit: cores.nullish(),
  orchestrator_memory_mb: integer.nullish(),
  orchestrator_memory_limit_mb: integer.nullish(),
  orchestrator_min_scale: integer.nullish(),
  orchestrator_max_scale: integer.nullish(),
  executor_cpu: cores.nullish(),
  executor_cpu_limit: cores.nullish(),
  executor_memory_mb: integer.nullish(),
  executor_memory_limit_mb: integer.nullish(),
  cache_cpu: cpuRequest.nullish(),
  cache_cpu_limit: cpuLimit.nullish(),
  cache_memory_mb: integer.nullish(),
  labels: stringToString.nullish(),
  annotations: stringToString.nullish(),
  service_account_name: z.string().nullish(),
  image_pull_secrets: z.array(LocalObjectReference).nullish(),
  volumes: z.array(Volume).nullish(),
  volume_mounts: z.array(VolumeMount).nullish(),
  init_containers: z.array(Container).nullish(),
  sidecars: z.array(Container).nullish(),
  db_cpu: cores.nullish(),
  db_cpu_limit: cores.nullish(),
  db_memory_mb: integer.nullish(),
  db_memory_limit_mb: integer.nullish(),
  db_storage_gi: integer.nullish(),
  db_max_connections: integer.nullish(),
});
export type ResourceSpec = z.infer<typeof ResourceSpec>;

/** "CPU values ... are rounded to 1 decimal place": every CPU field of the table. */
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
