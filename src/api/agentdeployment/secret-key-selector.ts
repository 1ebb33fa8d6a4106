// One key of a Secret in the object's own namespace: how every value that must stay secret
// reaches an AgentDeployment (spec.secrets, spec.smokeTest.apiKeySecretRef); and one key of a
// ConfigMap, the same shape for plain configuration. No namespace field: a reference can
// never read another namespace's Secret or ConfigMap.
import { z } from 'zod';

const DNS_SUBDOMAIN_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SECRET_KEY_PATTERN = /^[-._a-zA-Z0-9]+$/;

/** The name of a `kind` (Secret, ConfigMap) in the namespace of this AgentDeployment. */
export function localObjectName(kind: string) {
  return z
    .string()
    .min(1)
    .max(253)
    .regex(DNS_SUBDOMAIN_PATTERN)
    .describe(`Name of a ${kind} in the namespace of this AgentDeployment.`);
}

/** One key of a `kind` (Secret, ConfigMap) in the same namespace. */
function keySelector(kind: string) {
  return z
    .object({
      name: localObjectName(kind),
      key: z.string().min(1).max(253).regex(SECRET_KEY_PATTERN).describe(`Key within that ${kind}.`),
    })
    .describe(`Selects one key of a ${kind} in the same namespace.`);
}

export const SecretKeySelector = keySelector('Secret');

export type SecretKeySelector = z.infer<typeof SecretKeySelector>;

export const ConfigMapKeySelector = keySelector('ConfigMap');

export type ConfigMapKeySelector = z.infer<typeof ConfigMapKeySelector>;
