// spec of a PlatformConnection and a ClusterPlatformConnection (one schema for both): where
// the control plane and the platform API are (a region, or explicit URLs for a self-hosted
// install), how to authenticate, and optional private connectivity and rate limits. The
// rules that span fields ride on `spec` as CEL rules.
import { z } from 'zod';
import { CEL_RULES_KEY, celRule } from '../agentdeployment/cel.js';
import { HOST_PATTERN_REGEX } from '../../egress/host-patterns.js';

export const CONNECTION_REGIONS = ['us', 'eu'] as const;
export type ConnectionRegion = (typeof CONNECTION_REGIONS)[number];

const DNS_SUBDOMAIN_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SECRET_KEY_PATTERN = /^[-._a-zA-Z0-9]+$/;
const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** host[:port]: a DNS name or an IPv4 address. */
const HOST_PORT_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(:[0-9]{1,5})?$/;

/**
 * CEL (plain `matches`, no URL library, so every Kubernetes 1.25+ accepts it): https, or
 * http to a loopback host (an emulator or a port-forward on the operator's own machine).
 */
export const SECURE_URL_CEL = `self.matches('^https://[^/?#@]+(/[^?#]*)?$') || self.matches('^http://(localhost|127\\\\.[0-9]+\\\\.[0-9]+\\\\.[0-9]+|\\\\[::1\\\\])(:[0-9]+)?(/[^?#]*)?$')`;

const secureUrl = (field: string, description: string) =>
  z
    .string()
    .min(1)
    .max(2048)
    .meta({
      description,
      [CEL_RULES_KEY]: [
        celRule(
          SECURE_URL_CEL,
          `spec.${field} must be an https URL without query or user info (http only to localhost or 127.0.0.1)`,
        ),
      ],
    });

export const ConnectionSecretKeyRef = z
  .object({
    name: z
      .string()
      .min(1)
      .max(253)
      .regex(DNS_SUBDOMAIN_PATTERN)
      .describe(
        "Name of the Secret: in the connection's own namespace for a PlatformConnection, in the operator's namespace for a ClusterPlatformConnection.",
      ),
    key: z.string().min(1).max(253).regex(SECRET_KEY_PATTERN).describe('Key within that Secret.'),
  })
  .describe('One key of a Secret.');

export const ConnectionRateLimit = z
  .object({
    count: z.number().int().min(1).max(1_000_000).describe('Requests allowed per window.'),
    windowSeconds: z.number().int().min(1).max(86_400).describe('Window length in seconds.'),
  })
  .describe('A request count per fixed window.');

export const ConnectionRateLimits = z
  .object({
    default: ConnectionRateLimit.optional().describe(
      'Replaces the default API-key row (1000 requests per 10 s on the hosted regions).',
    ),
  })
  .describe('Rate limits that replace the published ones (self-hosted installs may configure their own).');

export const NamespaceSelector = z
  .object({
    matchLabels: z
      .record(z.string(), z.string())
      .describe('Labels the namespace must carry, all of them.')
      .optional(),
    matchExpressions: z
      .array(
        z.object({
          key: z.string().min(1).max(317).describe('Label key.'),
          operator: z
            .enum(['In', 'NotIn', 'Exists', 'DoesNotExist'])
            .describe('In, NotIn, Exists or DoesNotExist.'),
          values: z.array(z.string().max(63)).max(64).describe('Values for In and NotIn.').optional(),
        }),
      )
      .max(16)
      .describe('Requirements on the namespace labels, all of them.')
      .optional(),
  })
  .describe('A Kubernetes label selector on Namespace objects; {} selects every namespace.');

/** Most entries of spec.agentHosts. */
export const MAX_AGENT_HOSTS = 64;

export const AgentHosts = z
  .array(
    z
      .string()
      .min(1)
      .max(259)
      .regex(new RegExp(HOST_PATTERN_REGEX))
      .describe('host, *.domain (any host below domain), either with :port (default: the https port).'),
  )
  .max(MAX_AGENT_HOSTS)
  .describe(
    "Agent hosts this connection's key may be sent to when an AgentDeployment chose its agent URL itself (external_container spec.sourceConfig.customUrl). The platform's own addresses and URLs the platform assigned are always allowed. Empty (the default): a tenant-chosen URL gets no key; its smoke test needs spec.smokeTest.apiKeySecretRef.",
  );

const CREDENTIAL_FIELDS = ['apiKeySecretRef', 'bearerTokenSecretRef'] as const;
const count = (fields: readonly string[]) => fields.map((f) => `(has(self.${f}) ? 1 : 0)`).join(' + ');

const CONNECTION_SPEC_RULES = [
  celRule(
    `has(self.region) != (has(self.controlPlaneUrl) || has(self.platformApiUrl))`,
    'spec: set exactly one of region (us or eu) or the self-hosted URLs (controlPlaneUrl and platformApiUrl)',
  ),
  celRule(
    `has(self.controlPlaneUrl) == has(self.platformApiUrl)`,
    'spec: a self-hosted connection needs both controlPlaneUrl and platformApiUrl',
    '.platformApiUrl',
  ),
  celRule(
    `${count(CREDENTIAL_FIELDS)} == 1`,
    'spec: set exactly one credential: apiKeySecretRef (X-Api-Key) or bearerTokenSecretRef (Authorization: Bearer)',
  ),
];

const SPEC_DESCRIPTION = 'Where the platform is and how the operator authenticates to it.';

/** The fields both kinds share. */
const CONNECTION_FIELDS = {
  region: z
    .enum(CONNECTION_REGIONS)
    .describe("Hosted region, us or eu: picks both APIs' addresses and the region's rate limits.")
    .optional(),
  controlPlaneUrl: secureUrl(
    'controlPlaneUrl',
    'Self-hosted: base URL of the deployment control plane; may carry a path prefix (https://platform.example.com/api).',
  ).optional(),
  platformApiUrl: secureUrl(
    'platformApiUrl',
    'Self-hosted: base URL of the platform API (probed at /ok); may carry a path prefix.',
  ).optional(),
  privateDomain: z
    .string()
    .min(1)
    .max(253)
    .regex(HOST_PORT_PATTERN)
    .describe(
      'Host name (optionally :port) of the private network connection; its /ok is probed for Reachable (https; http only to localhost or 127.0.0.1).',
    )
    .optional(),
  apiKeySecretRef: ConnectionSecretKeyRef.optional().describe('API key, sent as X-Api-Key.'),
  bearerTokenSecretRef: ConnectionSecretKeyRef.optional().describe(
    'Bearer token, sent as Authorization: Bearer.',
  ),
  tenantId: z
    .string()
    .regex(UUID_PATTERN)
    .describe('Workspace id, sent as X-Tenant-Id (when the key can see several workspaces).')
    .optional(),
  rateLimits: ConnectionRateLimits.optional(),
  agentHosts: AgentHosts.optional(),
};

/** spec of a PlatformConnection: usable only by objects in its own namespace. */
export const PlatformConnectionSpec = z
  .object(CONNECTION_FIELDS)
  .meta({ description: SPEC_DESCRIPTION, [CEL_RULES_KEY]: CONNECTION_SPEC_RULES });

/**
 * spec of a ClusterPlatformConnection: adds the namespaces allowed to use it and those allowed
 * to delete data through it. Both fail closed: a key that can act on the whole workspace
 * serves no namespace until its owner says which.
 */
export const ClusterPlatformConnectionSpec = z
  .object({
    ...CONNECTION_FIELDS,
    namespaceSelector: NamespaceSelector.optional().describe(
      'The namespaces whose objects may use this connection (a label selector on Namespace objects). Absent: none; {} selects every namespace.',
    ),
    dataDeletionNamespaceSelector: NamespaceSelector.optional().describe(
      'The namespaces whose TraceDeletions and ExampleDeletions may delete data through this connection (they must also be allowed by namespaceSelector). Absent: none; {} selects every namespace namespaceSelector allows.',
    ),
  })
  .meta({ description: SPEC_DESCRIPTION, [CEL_RULES_KEY]: CONNECTION_SPEC_RULES });

export type ConnectionSecretKeyRef = z.infer<typeof ConnectionSecretKeyRef>;
export type ConnectionRateLimits = z.infer<typeof ConnectionRateLimits>;
export type NamespaceSelector = z.infer<typeof NamespaceSelector>;
/** Either kind's spec, as the operator reads it. */
export type ConnectionSpec = z.infer<typeof ClusterPlatformConnectionSpec>;
