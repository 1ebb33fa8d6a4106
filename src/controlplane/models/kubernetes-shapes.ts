// Kubernetes-shaped objects carried inside ResourceSpec (docs/api/control-plane.md,
// "Resource spec": volumes, volume mounts, init containers and sidecars).
// Their field names are camelCase on the wire, exactly as in a Pod spec, and the operator
// passes them through unchanged. Only rules that concern one object alone live here
// (types, required fields, enums, name formats); rules across objects (a mount naming an
// existing volume) belong to the server that checks the whole request.
import { z } from 'zod';

/** RFC 1123 label, as Kubernetes requires for volume and container names. */
export const DNS_LABEL_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A C identifier, the spec's rule for EnvVar names. */
export const C_IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const FreeFormObject = z.record(z.string(), z.unknown());
export const StringMap = z.record(z.string(), z.string());

const dnsLabel = z
  .string()
  .max(63, 'must be no more than 63 characters')
  .regex(DNS_LABEL_PATTERN, 'must be a DNS label (lowercase alphanumerics and "-", starting and ending alphanumeric)');

export const LocalObjectReference = z.object({ name: z.string() });

export const Volume = z.object({
  name: dnsLabel,
  configMap: FreeFormObject.nullish(),
  secret: FreeFormObject.nullish(),
  emptyDir: FreeFormObject.nullish(),
  persistentVolumeClaim: FreeFormObject.nullish(),
  nfs: FreeFormObject.nullish(),
  projected: FreeFormObject.nullish(),
  downwardAPI: FreeFormObject.nullish(),
  csi: FreeFormObject.nullish(),
});

export const VolumeMount = z.object({
  name: z.string(),
  mountPath: z.string(),
  subPath: z.string().nullish(),
  mountPropagation: z.string().nullish(),
  readOnly: z.boolean().nullish(),
  subPathExpr: z.string().nullish(),
});

export const EnvVar = z
  .object({
    name: z.string().regex(C_IDENTIFIER_PATTERN, 'must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)'),
    value: z.string().nullish(),
    valueFrom: FreeFormObject.nullish(),
  })
  .superRefine((env, ctx) => {
    if (env.valueFrom != null && env.value != null && env.value !== '') {
      ctx.addIssue({
        code: 'custom',
        path: ['valueFrom'],
        message: 'valueFrom cannot be used when value is non-empty',
      });
    }
  });

export const ResourceRequirements = z.object({
  limits: StringMap.nullish(),
  requests: StringMap.nullish(),
});

export const IMAGE_PULL_POLICIES = ['Always', 'Never', 'IfNotPresent'] as const;
export const SIDECAR_RESTART_POLICIES = ['Always', 'OnFailure'] as const;

export const Container = z.object({
  name: dnsLabel,
  image: z.string(),
  imagePullPolicy: z.enum(IMAGE_PULL_POLICIES).nullish(),
  command: z.array(z.string()).nullish(),
  args: z.array(z.string()).nullish(),
  workingDir: z.string().nullish(),
  env: z.array(EnvVar).nullish(),
  envFrom: z.array(FreeFormObject).nullish(),
  resources: ResourceRequirements.nullish(),
  volumeMounts: z.array(VolumeMount).nullish(),
  securityContext: FreeFormObject.nullish(),
  restartPolicy: z.enum(SIDECAR_RESTART_POLICIES).nullish(),
});

export type LocalObjectReference = z.infer<typeof LocalObjectReference>;
export type Volume = z.infer<typeof Volume>;
export type VolumeMount = z.infer<typeof VolumeMount>;
export type EnvVar = z.infer<typeof EnvVar>;
export type ResourceRequirements = z.infer<typeof ResourceRequirements>;
export type Container = z.infer<typeof Container>;
