// security.allowInsecureControlPlane passes --allow-insecure (off by default), so that an
// http:// controlPlane.url off the pod works only when asked for.
import { describe, expect, it } from 'vitest';
import { renderChart } from './support/helm.js';

async function operatorArgs(values: Record<string, unknown>): Promise<string[]> {
  const manifests = await renderChart({ values });
  const deployment = manifests.find((m) => m.kind === 'Deployment');
  const spec = deployment?.['spec'] as { template: { spec: { containers: { args: string[] }[] } } };
  return spec.template.spec.containers[0]?.args ?? [];
}

describe('security.allowInsecureControlPlane', () => {
  it('is off by default and passes --allow-insecure when on', async () => {
    const url = { controlPlane: { url: 'http://control-plane.internal:8080' } };
    expect(await operatorArgs(url)).not.toContain('--allow-insecure');
    const args = await operatorArgs({ ...url, security: { allowInsecureControlPlane: true } });
    expect(args).toContain('--allow-insecure');
    expect(args).toContain('--control-plane-url=http://control-plane.internal:8080');
  });
});
