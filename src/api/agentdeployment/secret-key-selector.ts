// One key of a Secret in the object's own namespace: how every value that must stay secret
// reaches an AgentDeployment (spec.secrets, spec.smokeTest.apiKeySecretRef); and one key of a
// ConfigMap, the same shape for plain configuration. No namespace field: a reference can
// never read another namespace's Secret or ConfigMap.
import { z } from 'zod';

const DNS_SUBDOMAIN_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SECRET_KEY_PATTERN = /^[-._a-zA-Z0-9]+$/;

export const SecretKeySelector = z
  .object({
    name: z
      .string()
      .min(1)
      .max(253)
      .regex(DNS_SUBDOMAIN_PATTERN)
      .describe('Name of a Secret in the namespace of this AgentDeployment.'),
    key: z.string().min(1).max(253).regex(SECRET_KEY_PATTERN).describe('Key within that Secret.'),
  })
  .describe('Selects one key of a Secret in the same namespace.');

export type SecretKeySelector = z.infer<typeof SecretKeySelector>;

export const ConfigMapKeySelector = z
  .object({
    name: z
      .string()
      .min(1)
      .max(253)
      .regex(DNS_SUBDOMAIN_PATTERN)
      .describe('Name of a ConfigMap in the namespace of this AgentDeployment.'),
    key: z.string().min(1).max(253).regex(SECRET_KEY_PATTERN).describe('Key within that ConfigMap.'),
  })
  .describe('Selects one key of a ConfigMap in the same namespace.');

export type ConfigMapKeySelector = z.infer<typeof ConfigMapKeySelector>;
