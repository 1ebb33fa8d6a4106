// The schema check must itself fail on the mistakes it exists for; otherwise a green
// rendered-manifests test proves nothing.
import { describe, expect, it } from 'vitest';
import { renderChart } from './support/helm.js';
import { validateAgainstKubernetesSchemas } from './support/kubernetes-schema.js';

async function renderedDeployment() {
  const deployment = (await renderChart({})).find((m) => m.kind === 'Deployment');
  if (!deployment) throw new Error('no Deployment rendered');
  return deployment;
}

describe('the Kubernetes schema check', () => {
  it('accepts the rendered Deployment as it is', async () => {
    expect(await validateAgainstKubernetesSchemas(await renderedDeployment())).toEqual({
      known: true,
      problems: [],
    });
  });

  it('rejects a misspelt field that JSON Schema alone would let through', async () => {
    const text = JSON.stringify(await renderedDeployment()).replace(
      '"readOnlyRootFilesystem"',
      '"readOnlyRootFileSystem"',
    );
    const outcome = await validateAgainstKubernetesSchemas(
      JSON.parse(text) as Awaited<ReturnType<typeof renderedDeployment>>,
    );
    expect(outcome.problems).toEqual([
      expect.stringContaining(
        'spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem: unknown field',
      ),
    ]);
  });

  it('rejects a wrong type and a missing required field', async () => {
    const deployment = await renderedDeployment();
    const text = JSON.stringify(deployment).replace('"runAsUser":65532', '"runAsUser":"nobody"');
    const broken = JSON.parse(text) as typeof deployment;
    const spec = broken['spec'] as { selector?: unknown };
    delete spec.selector;
    const outcome = await validateAgainstKubernetesSchemas(broken);
    expect(outcome.problems.join('\n')).toMatch(
      /runAsUser must be integer|must have required property 'selector'/,
    );
    expect(outcome.problems.length).toBeGreaterThan(0);
  });

  it('reports kinds it has no schema for as unknown instead of passing them', async () => {
    const outcome = await validateAgainstKubernetesSchemas({
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'AgentDeployment',
      metadata: { name: 'x' },
    });
    expect(outcome.known).toBe(false);
  });
});
