// The Kubernetes-shaped objects of `spec.sourceConfig.resourceSpec` as the CRD declares
// them: Volume, VolumeMount, EnvVar, Container, ResourceRequirements, LocalObjectReference.
// Their field names and value types are those of the wire models
// (src/controlplane/models/kubernetes-shapes.ts), so the operator hands the stored lists to
// the control plane unchanged; the compile-time checks at the bottom keep the two in step.
// What the CRD adds: descriptions for `kubectl explain`, length and item bounds that keep
// the API server's CEL cost estimate bounded, list keys for server-side apply, and CEL rules
// for what OpenAPI cannot say. Optional fields are not nullable: the API server prunes a
// null written by a user, which means the same to the control plane as an absent field.
import { z } from 'zod';
import {
  DNS_LABEL_PATTERN,
  IMAGE_PULL_POLICIES,
  SIDECAR_RESTART_POLICIES,
  type Container as WireContainer,
  type EnvVar as WireEnvVar,
  type LocalObjectReference as WireLocalObjectReference,
  type ResourceRequirements as WireResourceRequirements,
  type Volume as WireVolume,
  type VolumeMount as WireVolumeMount,
} from '../../controlplane/models/index.js';
import { CEL_RULES_KEY, celRule } from './cel.js';

/** Bounds on list sizes. They also bound the cost of the CEL rules that iterate the lists. */
export const LIMITS = {
  volumes: 32,
  volumeMounts: 32,
  containers: 16,
  env: 128,
  envFrom: 32,
  commandItems: 64,
  imagePullSecrets: 16,
  secrets: 100,
} as const;

/** The rule the spec gives for EnvVar names; also applied to secret names (they become env vars). */
export const C_IDENTIFIER_REGEX = '^[A-Za-z_][A-Za-z0-9_]*$';

const PRESERVE_UNKNOWN = { 'x-kubernetes-preserve-unknown-fields': true } as const;

/** An object whose content Kubernetes defines (a volume source, a securityContext): kept as written. */
export function freeFormObject(description: string) {
  return z.record(z.string(), z.unknown()).meta({ description, ...PRESERVE_UNKNOWN });
}

export const StringMap = z.record(z.string(), z.string());

function dnsLabel(description: string) {
  return z.string().min(1).max(63).regex(DNS_LABEL_PATTERN).describe(description);
}

function path(description: string) {
  return z.string().max(4096).describe(description);
}

export const LocalObjectReference = z
  .object({
    name: z.string().min(1).max(253).describe('Name of the referenced object in the same namespace.'),
  })
  .describe('A reference to an object in the same namespace, by name.');

export const Volume = z
  .object({
    name: dnsLabel('Volume name: a DNS label, unique within the pod. Volume mounts refer to it.'),
    configMap: freeFormObject('A ConfigMap volume source (Kubernetes ConfigMapVolumeSource).').optional(),
    secret: freeFormObject('A Secret volume source (Kubernetes SecretVolumeSource).').optional(),
    emptyDir: freeFormObject('An emptyDir volume source (Kubernetes EmptyDirVolumeSource).').optional(),
    persistentVolumeClaim: freeFormObject(
      'A PersistentVolumeClaim volume source (Kubernetes PersistentVolumeClaimVolumeSource).',
    ).optional(),
    nfs: freeFormObject('An NFS volume source (Kubernetes NFSVolumeSource).').optional(),
    projected: freeFormObject('A projected volume source (Kubernetes ProjectedVolumeSource).').optional(),
    downwardAPI: freeFormObject(
      'A downward API volume source (Kubernetes DownwardAPIVolumeSource).',
    ).optional(),
    csi: freeFormObject('A CSI volume source (Kubernetes CSIVolumeSource).').optional(),
  })
  .describe('A Kubernetes Volume, passed to the control plane unchanged.');

export const VolumeMount = z
  .object({
    name: z
      .string()
      .min(1)
      .max(63)
      .describe('Name of the volume to mount; must match the name of a declared volume.'),
    mountPath: path('Path in the container at which the volume is mounted.').min(1),
    subPath: path('Path within the volume to mount instead of its root.').optional(),
    mountPropagation: z
      .string()
      .max(64)
      .describe('How mounts propagate between host and container (Kubernetes MountPropagationMode).')
      .optional(),
    readOnly: z.boolean().describe('Mounted read-only when true.').optional(),
    subPathExpr: path(
      'Like subPath, but expanded with $(VAR_NAME) references to the environment.',
    ).optional(),
  })
  .describe('A Kubernetes VolumeMount, passed to the control plane unchanged.');

export const EnvVar = z
  .object({
    name: z
      .string()
      .min(1)
      .max(256)
      .meta({
        description: 'Environment variable name: a C identifier ([A-Za-z_][A-Za-z0-9_]*).',
        [CEL_RULES_KEY]: [
          celRule(
            `self.matches('${C_IDENTIFIER_REGEX}')`,
            'env[].name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)',
          ),
        ],
      }),
    value: z
      .string()
      .max(32768)
      .describe('The value; defaults to the empty string. Not with valueFrom.')
      .optional(),
    valueFrom: freeFormObject(
      'A source for the value (Kubernetes EnvVarSource); not allowed with a non-empty value.',
    ).optional(),
  })
  .meta({
    description: 'A Kubernetes EnvVar, passed to the control plane unchanged.',
    [CEL_RULES_KEY]: [
      celRule(
        `!has(self.valueFrom) || !has(self.value) || self.value == ''`,
        'env[].valueFrom cannot be used when env[].value is non-empty',
      ),
    ],
  });

export const ResourceRequirements = z
  .object({
    limits: StringMap.describe(
      'Maximum resources, as quantity strings (for example "500m", "1Gi").',
    ).optional(),
    requests: StringMap.describe(
      'Minimum resources, as quantity strings (for example "250m", "512Mi").',
    ).optional(),
  })
  .describe('Kubernetes ResourceRequirements; quantities are strings.');

const volumeMountList = (description: string) =>
  z
    .array(VolumeMount)
    .max(LIMITS.volumeMounts)
    .meta({ description, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['mountPath'] });

export const Container = z
  .object({
    name: dnsLabel('Container name: a DNS label, unique within the pod.'),
    image: z.string().min(1).max(1024).describe('Container image reference.'),
    imagePullPolicy: z
      .enum(IMAGE_PULL_POLICIES)
      .describe('When to pull the image: Always, Never or IfNotPresent.')
      .optional(),
    command: z
      .array(z.string().max(4096))
      .max(LIMITS.commandItems)
      .describe('Entrypoint, not run in a shell.')
      .optional(),
    args: z
      .array(z.string().max(4096))
      .max(LIMITS.commandItems)
      .describe('Arguments to the entrypoint.')
      .optional(),
    workingDir: path('Working directory of the container.').optional(),
    env: z
      .array(EnvVar)
      .max(LIMITS.env)
      .meta({
        description: 'Environment variables of the container.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      })
      .optional(),
    envFrom: z
      .array(freeFormObject('A Kubernetes EnvFromSource.'))
      .max(LIMITS.envFrom)
      .describe('Sources of environment variables (Kubernetes EnvFromSource).')
      .optional(),
    resources: ResourceRequirements.optional(),
    volumeMounts: volumeMountList(
      'Volumes mounted into this container; each names a volume of spec.sourceConfig.resourceSpec.volumes.',
    ).optional(),
    securityContext: freeFormObject(
      'Security options of the container (Kubernetes SecurityContext).',
    ).optional(),
    restartPolicy: z.enum(SIDECAR_RESTART_POLICIES).describe('For sidecars: Always or OnFailure.').optional(),
  })
  .describe('A Kubernetes Container, passed to the control plane unchanged.');

export { volumeMountList };

export type LocalObjectReference = z.infer<typeof LocalObjectReference>;
export type Volume = z.infer<typeof Volume>;
export type VolumeMount = z.infer<typeof VolumeMount>;
export type EnvVar = z.infer<typeof EnvVar>;
export type ResourceRequirements = z.infer<typeof ResourceRequirements>;
export type Container = z.infer<typeof Container>;

// Compile-time proof that every CRD shape is a valid wire shape, so that passing the stored
// object to the control plane unchanged is type-correct. A field added to one side only,
// or typed differently, fails the build here.
type Assignable<From, To> = [From] extends [To] ? true : false;
type MustBeTrue<T extends true> = T;
export type ShapesPassToWireUnchanged = [
  MustBeTrue<Assignable<LocalObjectReference, WireLocalObjectReference>>,
  MustBeTrue<Assignable<Volume, WireVolume>>,
  MustBeTrue<Assignable<VolumeMount, WireVolumeMount>>,
  MustBeTrue<Assignable<EnvVar, WireEnvVar>>,
  MustBeTrue<Assignable<ResourceRequirements, WireResourceRequirements>>,
  MustBeTrue<Assignable<Container, WireContainer>>,
  MustBeTrue<Assignable<keyof WireVolume, keyof Volume>>,
  MustBeTrue<Assignable<keyof WireVolumeMount, keyof VolumeMount>>,
  MustBeTrue<Assignable<keyof WireEnvVar, keyof EnvVar>>,
  MustBeTrue<Assignable<keyof WireContainer, keyof Container>>,
  MustBeTrue<Assignable<keyof WireResourceRequirements, keyof ResourceRequirements>>,
];
