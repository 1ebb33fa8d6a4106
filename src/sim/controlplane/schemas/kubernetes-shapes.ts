// The emulator's transcription of the Kubernetes-shaped objects inside a ResourceSpec, from
// the control-plane API document ("LocalObjectReference", "Volume", "VolumeMount", "Container",
// "EnvVar", "ResourceRequirements"). Field names are camelCase on the wire, as in a Pod spec.
// Written apart from the operator's client models on purpose: test/emulator-schemas compares
// the two, so a wrong field, enum value or required-ness in either one fails there.
import { z } from 'zod';

/** "DNS label": RFC 1123, at most 63 characters. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** "Must be a C identifier." */
const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const freeForm = z.record(z.string(), z.unknown());
const stringToString = z.record(z.string(), z.string());
const dnsLabel = z
  .string()
  .max(63, 'must be no more than 63 characters')
  .regex(
    DNS_LABEL,
    'must be a DNS label (lowercase alphanumerics and "-", starting and ending alphanumeric)',
  );

export const IMAGE_PULL_POLICIES = ['Always', 'Never', 'IfNotPresent'] as const;
export const SIDECAR_RESTART_POLICIES = ['Always', 'OnFailure'] as const;

export const LocalObjectReference = z.object({ name: z.string() });

export const Volume = z.object({
  name: dnsLabel,
  configMap: freeForm.nullish(),
  secret: freeForm.nullish(),
  emptyDir: freeForm.nullish(),
  persistentVolumeClaim: freeForm.nullish(),
  nfs: freeForm.nullish(),
  projected: freeForm.nullish(),
  downwardAPI: freeForm.nullish(),
  csi: freeForm.nullish(),
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
    name: z.string().regex(C_IDENTIFIER, 'must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)'),
    value: z.string().nullish(),
    valueFrom: freeForm.nullish(),
  })
  .superRefine((env, ctx) => {
    // "valueFrom: cannot be used when value is non-empty."
    if (env.valueFrom != null && env.value != null && env.value !== '') {
      ctx.addIssue({
        code: 'custom',
        path: ['valueFrom'],
        message: 'valueFrom cannot be used when value is non-empty',
      });
    }
  });

export const ResourceRequirements = z.object({
  limits: stringToString.nullish(),
  requests: stringToString.nullish(),
});

export const Container = z.object({
  name: dnsLabel,
  image: z.string(),
  imagePullPolicy: z.enum(IMAGE_PULL_POLICIES).nullish(),
  command: z.array(z.string()).nullish(),
  args: z.array(z.string()).nullish(),
  workingDir: z.string().nullish(),
  env: z.array(EnvVar).nullish(),
  envFrom: z.array(freeForm).nullish(),
  resources: ResourceRequirements.nullish(),
  volumeMounts: z.array(VolumeMount).nullish(),
  securityContext: freeForm.nullish(),
  restartPolicy: z.enum(SIDECAR_RESTART_POLICIES).nullish(),
});

export type VolumeMount = z.infer<typeof VolumeMount>;
export type Container = z.infer<typeof Container>;
