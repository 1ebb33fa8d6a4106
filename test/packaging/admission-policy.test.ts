// The optional ValidatingAdmissionPolicy: off by default; when on, its CEL expressions (as
// helm renders them) evaluated on sample AgentDeployments refuse exactly the privileged
// shapes (privileged, runAsUser 0, SYS_ADMIN, hostPath, a foreign clusterNamespace).
import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { renderChart, type Manifest } from './support/helm.js';
import { validateAgainstKubernetesSchemas } from './support/kubernetes-schema.js';

interface Policy {
  variables: { name: string; expression: string }[];
  validations: { expression: string; message?: string; messageExpression?: string; reason: string }[];
}

// Kubernetes enables CEL optionals (`.?field`, `.orValue()`) in admission policies.
const environment = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true });

async function renderPolicy(values: Record<string, unknown>): Promise<{ policy: Policy; binding: Manifest }> {
  const manifests = await renderChart({ values: { admissionPolicy: { enabled: true, ...values } } });
  const policy = manifests.find((m) => m.kind === 'ValidatingAdmissionPolicy');
  const binding = manifests.find((m) => m.kind === 'ValidatingAdmissionPolicyBinding');
  if (!policy || !binding) throw new Error('the policy or its binding was not rendered');
  expect(binding['spec']).toMatchObject({ policyName: policy.metadata.name });
  return { policy: policy['spec'] as Policy, binding };
}

const OPERATOR = 'system:serviceaccount:agent-operator-system:agent-operator';

interface Request {
  username?: string;
  subResource?: string;
  oldObject?: Record<string, unknown>;
}

/** The messages of the validations the request fails, as the API server would report them. */
function failures(policy: Policy, object: Record<string, unknown>, request: Request = {}): string[] {
  const variables: Record<string, unknown> = {};
  const context = {
    object,
    oldObject: request.oldObject ?? null,
    request: { userInfo: { username: request.username ?? 'alice' }, subResource: request.subResource ?? '' },
    variables,
  };
  for (const variable of policy.variables) {
    variables[variable.name] = environment.parse(variable.expression)(context);
  }
  const failed: string[] = [];
  for (const validation of policy.validations) {
    if (environment.parse(validation.expression)(context) === true) continue;
    const message = validation.messageExpression
      ? String(environment.parse(validation.messageExpression)(context))
      : (validation.message ?? '');
    failed.push(message);
  }
  return failed;
}

function agent(resourceSpec: Record<string, unknown>, clusterNamespace?: string): Record<string, unknown> {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'a', namespace: 'team-a' },
    spec: {
      source: 'external_container',
      sourceConfig: {
        listenerId: '81bc96ab-d41b-4ac9-a580-dda23194bcc1',
        resourceSpec,
        ...(clusterNamespace === undefined ? {} : { listenerConfig: { clusterNamespace } }),
      },
      sourceRevisionConfig: { imageUri: 'registry.example/agent:1' },
    },
  };
}

const sidecar = (securityContext: Record<string, unknown>) => ({
  name: 'proxy',
  image: 'envoy:1',
  securityContext,
});

describe('admission policy', () => {
  it('is not rendered by default', async () => {
    const kinds = (await renderChart({})).map((m) => m.kind);
    expect(kinds).not.toContain('ValidatingAdmissionPolicy');
    expect(kinds).not.toContain('ValidatingAdmissionPolicyBinding');
  });

  it('renders a policy and a binding that the Kubernetes schemas accept', async () => {
    const manifests = await renderChart({
      values: {
        admissionPolicy: {
          enabled: true,
          allowedClusterNamespaces: ['shared'],
          namespaceSelector: { matchLabels: { tenant: 'yes' } },
        },
      },
    });
    const rendered = manifests.filter((m) => m.kind.startsWith('ValidatingAdmissionPolicy'));
    expect(rendered.map((m) => m.kind).sort()).toEqual([
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    for (const manifest of rendered) {
      expect(await validateAgainstKubernetesSchemas(manifest), manifest.kind).toEqual({
        known: true,
        problems: [],
      });
    }
  });

  it('lets an ordinary AgentDeployment through, and one without resourceSpec', async () => {
    const { policy } = await renderPolicy({ allowedClusterNamespaces: ['shared'] });
    const ordinary = agent(
      {
        sidecars: [
          sidecar({ runAsUser: 1000, runAsNonRoot: true, capabilities: { add: ['NET_BIND_SERVICE'] } }),
        ],
        initContainers: [{ name: 'init', image: 'busybox:1' }],
        volumes: [{ name: 'cache', emptyDir: {} }],
      },
      'team-a',
    );
    expect(failures(policy, ordinary)).toEqual([]);
    expect(failures(policy, agent({}, 'shared'))).toEqual([]);
    const repoHost = {
      metadata: { name: 'r', namespace: 'team-a' },
      spec: { source: 'repo_host', sourceConfig: {} },
    };
    expect(failures(policy, repoHost)).toEqual([]);
    expect(failures(policy, { metadata: { name: 'r', namespace: 'team-a' }, spec: {} })).toEqual([]);
  });

  it.each([
    ['a privileged sidecar', agent({ sidecars: [sidecar({ privileged: true })] }), /privileged containers/],
    [
      'an init container running as root',
      agent({ initContainers: [{ name: 'i', image: 'x', securityContext: { runAsUser: 0 } }] }),
      /may not run as root/,
    ],
    [
      'SYS_ADMIN',
      agent({ sidecars: [sidecar({ capabilities: { add: ['NET_ADMIN', 'SYS_ADMIN'] } })] }),
      /SYS_ADMIN/,
    ],
    [
      'CAP_SYS_ADMIN',
      agent({ sidecars: [sidecar({ capabilities: { add: ['CAP_SYS_ADMIN'] } })] }),
      /SYS_ADMIN/,
    ],
    ['ALL capabilities', agent({ sidecars: [sidecar({ capabilities: { add: ['ALL'] } })] }), /SYS_ADMIN/],
    ['a hostPath volume', agent({ volumes: [{ name: 'h', hostPath: { path: '/' } }] }), /hostPath volumes/],
    [
      'a foreign clusterNamespace',
      agent({}, 'kube-system'),
      /clusterNamespace "kube-system" is not allowed here: use one of the allowed cluster namespaces or the namespace of the AgentDeployment/,
    ],
  ])('refuses %s, naming the field and the rule', async (_what, object, message) => {
    const { policy } = await renderPolicy({ allowedClusterNamespaces: ['shared'] });
    const failed = failures(policy, object);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(message);
    expect(failed[0]).toMatch(/^spec\.sourceConfig\./);
  });

  it('allows only the listed cluster namespaces when the own namespace is not allowed', async () => {
    const { policy, binding } = await renderPolicy({
      allowedClusterNamespaces: ['shared'],
      allowObjectNamespace: false,
      validationActions: ['Warn', 'Audit'],
      namespaceSelector: { matchLabels: { tenant: 'yes' } },
    });
    expect(failures(policy, agent({}, 'shared'))).toEqual([]);
    expect(failures(policy, agent({}, 'team-a'))).toHaveLength(1);
    expect(binding['spec']).toMatchObject({
      validationActions: ['Warn', 'Audit'],
      matchResources: { namespaceSelector: { matchLabels: { tenant: 'yes' } } },
    });
  });

  it('exempts the operator from the spec rules, so it can keep writing objects made before the policy', async () => {
    const { policy } = await renderPolicy({});
    const privileged = agent({ sidecars: [sidecar({ privileged: true })] }, 'kube-system');
    expect(failures(policy, privileged, { username: OPERATOR, oldObject: privileged })).toEqual([]);
    expect(failures(policy, privileged, { oldObject: privileged })).toHaveLength(2);
  });

  it('lets only the operator write agentplatform.io/ annotations and the status', async () => {
    const { policy } = await renderPolicy({});
    const withAnnotations = (annotations: Record<string, string>) => {
      const object = agent({});
      (object['metadata'] as Record<string, unknown>)['annotations'] = annotations;
      return object;
    };
    const owned = withAnnotations({ 'agentplatform.io/deployment-id': 'victim-id', team: 'a' });
    const forged = /agentplatform\.io\/ annotations are written by the operator only/;
    // Forging on create, changing, adding and removing are refused for a user.
    expect(failures(policy, owned)).toEqual([expect.stringMatching(forged)]);
    expect(
      failures(policy, withAnnotations({ 'agentplatform.io/deployment-id': 'other' }), { oldObject: owned }),
    ).toEqual([expect.stringMatching(forged)]);
    expect(
      failures(policy, withAnnotations({ 'agentplatform.io/create-pending': 'x' }), {
        oldObject: withAnnotations({}),
      }),
    ).toEqual([expect.stringMatching(forged)]);
    expect(failures(policy, withAnnotations({ team: 'a' }), { oldObject: owned })).toEqual([
      expect.stringMatching(forged),
    ]);
    // Leaving them as they are, and any other annotation, is fine; the operator may do anything.
    expect(
      failures(policy, withAnnotations({ 'agentplatform.io/deployment-id': 'victim-id', team: 'b' }), {
        oldObject: owned,
      }),
    ).toEqual([]);
    expect(failures(policy, owned, { username: OPERATOR, oldObject: withAnnotations({}) })).toEqual([]);
    // The status subresource.
    expect(failures(policy, owned, { subResource: 'status', oldObject: owned })).toEqual([
      expect.stringMatching(/^status: the status of an AgentDeployment is written by the operator only/),
    ]);
    expect(failures(policy, owned, { username: OPERATOR, subResource: 'status', oldObject: owned })).toEqual(
      [],
    );
  });

  it('leaves annotations and status alone when protectOperatorFields is off', async () => {
    const { policy } = await renderPolicy({ protectOperatorFields: false });
    const object = agent({});
    (object['metadata'] as Record<string, unknown>)['annotations'] = {
      'agentplatform.io/deployment-id': 'x',
    };
    expect(failures(policy, object, { subResource: 'status' })).toEqual([]);
  });
});
