// The connection CRDs admit the four shapes (US, EU, self-hosted with a path prefix, private
// domain) and refuse what the CEL rules forbid, with a message naming the field: through the
// Kubernetes emulator's full admission (prune, default, OpenAPI, CEL).
import { describe, expect, it } from 'vitest';
import { CLUSTER_PLATFORM_CONNECTION, PLATFORM_CONNECTION } from '../../src/api/connection/index.js';
import { connectionCrd, connectionOpenApiSchema } from '../../src/api/crd/connection-crd.js';
import { prepareCustomResource, type JSONSchemaProps } from '../../src/sim/kube/validation/index.js';
import { typeCheckRules } from '../api/support/cel-harness.js';

const namespaced = connectionOpenApiSchema(PLATFORM_CONNECTION) as unknown as JSONSchemaProps;
const cluster = connectionOpenApiSchema(CLUSTER_PLATFORM_CONNECTION) as unknown as JSONSchemaProps;
const KEY = { apiKeySecretRef: { name: 'platform-key', key: 'apiKey' } };

function admit(spec: Record<string, unknown>, schema = namespaced): string[] {
  const result = prepareCustomResource({
    schema,
    object: {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'PlatformConnection',
      metadata: { name: 'c' },
      spec,
    },
    fieldValidation: 'Strict',
  });
  return [
    ...(result.strictError === undefined ? [] : [result.strictError]),
    ...result.causes.map((c) => `${c.field}: ${c.message}`),
  ];
}

describe('connection CRDs', () => {
  it('are namespaced and cluster-scoped, with the printer columns READY, REACHABLE, REGION/URL, AGE', () => {
    expect(connectionCrd(PLATFORM_CONNECTION).spec.scope).toBe('Namespaced');
    expect(connectionCrd(CLUSTER_PLATFORM_CONNECTION).spec.scope).toBe('Cluster');
    expect(
      connectionCrd(PLATFORM_CONNECTION).spec.versions[0]?.additionalPrinterColumns.map((c) =>
        c.name.toUpperCase(),
      ),
    ).toEqual(['READY', 'REACHABLE', 'REGION/URL', 'AGE']);
  });

  it('every CEL rule type-checks against the schema', () => {
    const spec = connectionOpenApiSchema(CLUSTER_PLATFORM_CONNECTION).properties?.spec;
    const results = typeCheckRules(spec ?? {}, 'spec');
    expect(results.length).toBe(5);
    for (const result of results) expect(result.error ?? result.valid).toBe(true);
  });

  it.each([
    ['US', { region: 'us', ...KEY }],
    [
      'EU with a tenant and a bearer token',
      {
        region: 'eu',
        bearerTokenSecretRef: { name: 't', key: 'token' },
        tenantId: '6f1b7b3e-51a4-4c39-8f55-3a1d2b4c5e6f',
      },
    ],
    [
      'self-hosted with a path prefix',
      {
        controlPlaneUrl: 'https://platform.example.com/control',
        platformApiUrl: 'https://platform.example.com/api',
        ...KEY,
      },
    ],
    [
      'a loopback emulator over http',
      { controlPlaneUrl: 'http://127.0.0.1:8080/prefix', platformApiUrl: 'http://localhost:8080', ...KEY },
    ],
    ['a private domain', { region: 'us', privateDomain: 'platform.internal.example.com', ...KEY }],
    [
      'a rate-limit override',
      { region: 'eu', rateLimits: { default: { count: 100, windowSeconds: 10 } }, ...KEY },
    ],
  ])('admits %s', (_, spec) => {
    expect(admit(spec)).toEqual([]);
  });

  it.each([
    ['neither region nor URLs', { ...KEY }, 'exactly one of region'],
    [
      'both region and URLs',
      {
        region: 'us',
        controlPlaneUrl: 'https://a.example.com',
        platformApiUrl: 'https://b.example.com',
        ...KEY,
      },
      'exactly one of region',
    ],
    [
      'a control-plane URL without the platform URL',
      { controlPlaneUrl: 'https://a.example.com', ...KEY },
      'needs both controlPlaneUrl and platformApiUrl',
    ],
    [
      'plain http to a remote host',
      {
        controlPlaneUrl: 'http://platform.example.com',
        platformApiUrl: 'https://platform.example.com',
        ...KEY,
      },
      'spec.controlPlaneUrl must be an https URL',
    ],
    [
      'user info in the URL',
      {
        controlPlaneUrl: 'https://u:p@platform.example.com',
        platformApiUrl: 'https://platform.example.com',
        ...KEY,
      },
      'spec.controlPlaneUrl must be an https URL',
    ],
    ['no credential', { region: 'us' }, 'exactly one credential'],
    [
      'two credentials',
      { region: 'us', ...KEY, bearerTokenSecretRef: { name: 't', key: 'token' } },
      'exactly one credential',
    ],
    ['an unknown region', { region: 'ap', ...KEY }, 'spec.region'],
  ])('refuses %s, naming the field', (_, spec, message) => {
    expect(admit(spec).join('\n')).toContain(message);
  });

  it('namespaceSelector exists on ClusterPlatformConnection only', () => {
    const spec = { region: 'us', ...KEY, namespaceSelector: { matchLabels: { team: 'payments' } } };
    expect(admit(spec, cluster)).toEqual([]);
    expect(admit(spec, namespaced).join()).toContain('unknown field "spec.namespaceSelector"');
  });
});
