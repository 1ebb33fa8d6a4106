// Cross-field rules of a ResourceSpec that the schema alone cannot state; each violation
// is a 400 naming the field. Run on the spec after rounding and defaults, so that a
// defaulted limit is compared like a given one.
import type { Container, ResourceSpec, VolumeMount } from './schemas/index.js';
import { detailError } from '../http/http-error.js';
import { LIMIT_REQUEST_PAIRS } from './resource-spec-defaults.js';

const PREFIX = 'source_config.resource_spec';

/**
 * Replica counts ("Minimum replicas", "Maximum replicas"): the spec gives no bounds, but a
 * number of replicas cannot be below zero. The "do not use" orchestrator fields are left alone.
 */
const REPLICA_COUNTS: (keyof ResourceSpec)[] = ['min_scale', 'max_scale', 'queue_min_scale', 'queue_max_scale'];

const SCALE_PAIRS: [keyof ResourceSpec, keyof ResourceSpec][] = [
  ['min_scale', 'max_scale'],
  ['queue_min_scale', 'queue_max_scale'],
];

function checkMounts(
  mounts: readonly VolumeMount[] | null | undefined,
  volumeNames: Set<string>,
  where: string,
): void {
  (mounts ?? []).forEach((mount, index) => {
    if (!volumeNames.has(mount.name)) {
      throw detailError(
        400,
        `${where}[${index}].name "${mount.name}" does not name a volume in ${PREFIX}.volumes`,
      );
    }
  });
}

function checkContainers(
  containers: readonly Container[] | null | undefined,
  field: 'init_containers' | 'sidecars',
  volumeNames: Set<string>,
  seenNames: Set<string>,
): void {
  (containers ?? []).forEach((container, index) => {
    if (seenNames.has(container.name)) {
      throw detailError(
        400,
        `${PREFIX}.${field}[${index}].name "${container.name}" is not unique among the pod's containers`,
      );
    }
    seenNames.add(container.name);
    checkMounts(container.volumeMounts, volumeNames, `${PREFIX}.${field}[${index}].volumeMounts`);
  });
}

export function checkResourceSpecRules(spec: ResourceSpec): void {
  const volumeNames = new Set<string>();
  (spec.volumes ?? []).forEach((volume, index) => {
    if (volumeNames.has(volume.name)) {
      throw detailError(
        400,
        `${PREFIX}.volumes[${index}].name "${volume.name}" is not unique within the pod`,
      );
    }
    volumeNames.add(volume.name);
  });
  checkMounts(spec.volume_mounts, volumeNames, `${PREFIX}.volume_mounts`);
  const containerNames = new Set<string>();
  checkContainers(spec.init_containers, 'init_containers', volumeNames, containerNames);
  checkContainers(spec.sidecars, 'sidecars', volumeNames, containerNames);

  for (const [limit, request] of LIMIT_REQUEST_PAIRS) {
    const limitValue = spec[limit];
    const requestValue = spec[request];
    if (typeof limitValue === 'number' && typeof requestValue === 'number' && limitValue < requestValue) {
      throw detailError(
        400,
        `${PREFIX}.${limit} (${limitValue}) must not be below ${PREFIX}.${request} (${requestValue})`,
      );
    }
  }
  for (const field of REPLICA_COUNTS) {
    const value = spec[field];
    if (typeof value === 'number' && value < 0) {
      throw detailError(400, `${PREFIX}.${field} (${value}) must not be negative`);
    }
  }
  for (const [min, max] of SCALE_PAIRS) {
    const minValue = spec[min];
    const maxValue = spec[max];
    if (typeof minValue === 'number' && typeof maxValue === 'number' && minValue > maxValue) {
      throw detailError(400, `${PREFIX}.${min} (${minValue}) must not exceed ${PREFIX}.${max} (${maxValue})`);
    }
  }
}
