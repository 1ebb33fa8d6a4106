// spec.sourceConfig.resourceSpec: every field of the wire's ResourceSpec, in camelCase, with
// the spec's bounds (cpu 0.1..8 for requests, 0.1..16 for limits). Defaults such as "limit =
// 2x request" are the control plane's and are deliberately not applied here: a field left
// out stays out, so the server's default keeps applying. The rules between fields (a minimum
// not above its maximum, a limit not below its request) are in resource-spec-rules.ts.
import { z } from 'zod';
import { CPU_LIMIT_BOUNDS, CPU_REQUEST_BOUNDS } from '../../controlplane/models/index.js';
import { CEL_RULES_KEY, celRule } from './cel.js';
import { RESOURCE_SPEC_RULES } from './resource-spec-rules.js';
import {
  Container,
  LIMITS,
  LocalObjectReference,
  StringMap,
  Volume,
  volumeMountList,
} from './kubernetes-shapes.js';

const cpuRequest = (description: string) =>
  z
    .number()
    .min(CPU_REQUEST_BOUNDS.min)
    .max(CPU_REQUEST_BOUNDS.max)
    .describe(
      `${description} In cores, ${CPU_REQUEST_BOUNDS.min} to ${CPU_REQUEST_BOUNDS.max}; rounded to one decimal place.`,
    )
    .optional();
const cpuLimit = (description: string) =>
  z
    .number()
    .min(CPU_LIMIT_BOUNDS.min)
    .max(CPU_LIMIT_BOUNDS.max)
    .describe(
      `${description} In cores, ${CPU_LIMIT_BOUNDS.min} to ${CPU_LIMIT_BOUNDS.max}; rounded to one decimal place.`,
    )
    .optional();
/** CPU fields the spec marks "do not use" or gives no bounds: any non-negative number. */
const cpuUnbounded = (description: string) =>
  z.number().min(0).describe(`${description} In cores; rounded to one decimal place.`).optional();
const count = (description: string) => z.number().int().min(0).describe(description).optional();
const megabytes = (description: string) =>
  z.number().int().min(0).describe(`${description} In MB.`).optional();
const DO_NOT_USE = 'Marked "do not use" by the control-plane API; carried unchanged.';

/** Names a volume the pod declares; applied to the top-level mounts and to every container's. */
const MOUNTS_NAME_DECLARED_VOLUMES = [
  celRule(
    `!has(self.volumeMounts) || self.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name))`,
    'resourceSpec.volumeMounts[].name must name a volume declared in resourceSpec.volumes',
  ),
  celRule(
    `!has(self.initContainers) || self.initContainers.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name)))`,
    'resourceSpec.initContainers[].volumeMounts[].name must name a volume declared in resourceSpec.volumes',
  ),
  celRule(
    `!has(self.sidecars) || self.sidecars.all(c, !has(c.volumeMounts) || c.volumeMounts.all(m, has(self.volumes) && self.volumes.exists(v, v.name == m.name)))`,
    'resourceSpec.sidecars[].volumeMounts[].name must name a volume declared in resourceSpec.volumes',
  ),
];

const containerList = (description: string) =>
  z
    .array(Container)
    .max(LIMITS.containers)
    .meta({ description, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })
    .optional();

export const ResourceSpec = z
  .object({
    minScale: count('Minimum number of replicas.'),
    maxScale: count('Maximum number of replicas.'),
    cpu: cpuRequest('CPU request per replica.'),
    cpuLimit: cpuLimit('CPU limit per replica; defaults to 2x cpu.'),
    memoryMb: megabytes('Memory request per replica.'),
    memoryLimitMb: megabytes('Memory limit per replica; defaults to 2x memoryMb.'),
    queueMinScale: count('Minimum replicas of the queue worker; defaults to minScale.'),
    queueMaxScale: count('Maximum replicas of the queue worker; defaults to maxScale.'),
    queueCpu: cpuRequest('CPU request of the queue worker; defaults to cpu.'),
    queueCpuLimit: cpuLimit('CPU limit of the queue worker; defaults to 2x queueCpu.'),
    queueMemoryMb: megabytes('Memory request of the queue worker; defaults to memoryMb.'),
    queueMemoryLimitMb: megabytes('Memory limit of the queue worker; defaults to 2x queueMemoryMb.'),
    orchestratorCpu: cpuUnbounded(`Orchestrator CPU request. ${DO_NOT_USE}`),
    orchestratorCpuLimit: cpuUnbounded(`Orchestrator CPU limit. ${DO_NOT_USE}`),
    orchestratorMemoryMb: megabytes(`Orchestrator memory request. ${DO_NOT_USE}`),
    orchestratorMemoryLimitMb: megabytes(`Orchestrator memory limit. ${DO_NOT_USE}`),
    orchestratorMinScale: count(`Orchestrator minimum replicas. ${DO_NOT_USE}`),
    orchestratorMaxScale: count(`Orchestrator maximum replicas. ${DO_NOT_USE}`),
    executorCpu: cpuUnbounded(`Executor CPU request. ${DO_NOT_USE}`),
    executorCpuLimit: cpuUnbounded(`Executor CPU limit. ${DO_NOT_USE}`),
    executorMemoryMb: megabytes(`Executor memory request. ${DO_NOT_USE}`),
    executorMemoryLimitMb: megabytes(`Executor memory limit. ${DO_NOT_USE}`),
    cacheCpu: cpuRequest('CPU request of the cache component.'),
    cacheCpuLimit: cpuLimit('CPU limit of the cache component; defaults to 2x cacheCpu.'),
    cacheMemoryMb: megabytes('Memory of the cache component.'),
    labels: StringMap.describe('Extra labels for the resources the control plane creates.').optional(),
    annotations: StringMap.describe(
      'Extra annotations for the resources the control plane creates.',
    ).optional(),
    serviceAccountName: z
      .string()
      .min(1)
      .max(253)
      .describe('Service account of the pods; must already exist in the target cluster namespace.')
      .optional(),
    imagePullSecrets: z
      .array(LocalObjectReference)
      .max(LIMITS.imagePullSecrets)
      .meta({
        description: 'Registry-credential Secrets in the target namespace (Kubernetes LocalObjectReference).',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      })
      .optional(),
    volumes: z
      .array(Volume)
      .max(LIMITS.volumes)
      .meta({
        description:
          'Volumes the containers of the pod can mount (Kubernetes Volume), passed through unchanged.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      })
      .optional(),
    volumeMounts: volumeMountList(
      'Mounts into the agent container (Kubernetes VolumeMount); each names a declared volume.',
    ).optional(),
    initContainers: containerList(
      'Containers run to completion before the agent starts (Kubernetes Container).',
    ),
    sidecars: containerList('Containers run alongside the agent (Kubernetes Container).'),
    dbCpu: cpuUnbounded('Database CPU request.'),
    dbCpuLimit: cpuUnbounded('Database CPU limit; defaults to 2x dbCpu.'),
    dbMemoryMb: megabytes('Database memory request.'),
    dbMemoryLimitMb: megabytes('Database memory limit; defaults to 2x dbMemoryMb.'),
    dbStorageGi: count('Database storage, in GiB.'),
    dbMaxConnections: count('Maximum number of database connections.'),
  })
  .meta({
    description:
      'Resources of the deployment (external_container only). Fields left out take the defaults of the control plane.',
    [CEL_RULES_KEY]: [...MOUNTS_NAME_DECLARED_VOLUMES, ...RESOURCE_SPEC_RULES],
  });

export type ResourceSpec = z.infer<typeof ResourceSpec>;
