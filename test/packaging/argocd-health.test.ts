// The Argo CD health check under Debian's lua5.1, driven by its own health_test.yaml
// exactly as Argo CD's resource-customization tests read it.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseYaml } from './support/helm.js';
import { runHealthScript, toLuaLiteral } from './support/lua.js';
import { ARGOCD_HEALTH_DIR, REPO_ROOT } from './support/paths.js';

const HealthTestFile = z.object({
  tests: z
    .array(
      z.object({
        healthStatus: z.object({
          status: z.enum(['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown']),
          message: z.string(),
        }),
        inputPath: z.string().regex(/^testdata\/[^/]+\.yaml$/),
      }),
    )
    .min(1),
});

const SCRIPT = join(ARGOCD_HEALTH_DIR, 'health.lua');
const healthTests = HealthTestFile.parse(
  parseYaml(await readFile(join(ARGOCD_HEALTH_DIR, 'health_test.yaml'), 'utf8')),
).tests;

async function object(inputPath: string): Promise<unknown> {
  return parseYaml(await readFile(join(ARGOCD_HEALTH_DIR, inputPath), 'utf8'));
}

describe('Argo CD health check for AgentDeployment (lua5.1)', () => {
  it.each(healthTests.map((t) => [t.inputPath, t] as const))('%s', async (_path, test) => {
    expect(await runHealthScript(SCRIPT, await object(test.inputPath))).toEqual(test.healthStatus);
  });

  it('covers every file in testdata/ and each of Healthy, Progressing, Degraded and Suspended', async () => {
    const files = (await readdir(join(ARGOCD_HEALTH_DIR, 'testdata'))).map((f) => `testdata/${f}`).sort();
    expect(healthTests.map((t) => t.inputPath).sort()).toEqual(files);
    expect(new Set(healthTests.map((t) => t.healthStatus.status))).toEqual(
      new Set(['Healthy', 'Progressing', 'Degraded', 'Suspended']),
    );
  });

  it('treats a Ready condition from an older generation as not yet observed', async () => {
    const healthy = (await object('testdata/healthy.yaml')) as { metadata: { generation: number } };
    healthy.metadata.generation += 1;
    expect((await runHealthScript(SCRIPT, healthy)).status).toBe('Progressing');
  });

  it('puts Stalled before Ready: a terminal error is never shown as healthy', async () => {
    const degraded = (await object('testdata/degraded_stalled.yaml')) as {
      status: { conditions: Array<{ type: string; status: string }> };
    };
    for (const condition of degraded.status.conditions)
      if (condition.type === 'Ready') condition.status = 'True';
    expect((await runHealthScript(SCRIPT, degraded)).status).toBe('Degraded');
  });

  it('passes strings with quotes, backslashes and newlines to Lua intact', async () => {
    const message = 'line "one"\\\nline two';
    expect(toLuaLiteral({ message })).not.toContain('\n');
    const stalled = {
      metadata: { generation: 1 },
      status: { observedGeneration: 1, conditions: [{ type: 'Stalled', status: 'True', message }] },
    };
    expect(await runHealthScript(SCRIPT, stalled)).toEqual({ status: 'Degraded', message });
  });

  it('is what the argocd-cm patch in deploy/argocd installs, byte for byte', async () => {
    const patch = parseYaml(
      await readFile(join(REPO_ROOT, 'deploy', 'argocd', 'argocd-cm-patch.yaml'), 'utf8'),
    ) as {
      data: Record<string, string>;
    };
    expect(Object.keys(patch.data)).toEqual([
      'resource.customizations.health.agentplatform.io_AgentDeployment',
    ]);
    expect(patch.data['resource.customizations.health.agentplatform.io_AgentDeployment']).toBe(
      await readFile(SCRIPT, 'utf8'),
    );
  });
});
