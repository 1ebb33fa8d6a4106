// The Argo CD health checks of every kind the operator serves, under Debian's lua5.1, each
// driven by its own health_test.yaml exactly as Argo CD's resource-customization tests read it.
import { readFileSync, readdirSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseYaml } from './support/helm.js';
import { runHealthScript, toLuaLiteral } from './support/lua.js';
import { ARGOCD_CUSTOMIZATIONS_DIR, ARGOCD_HEALTH_DIR, REPO_ROOT } from './support/paths.js';

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

/** Every kind of crds/ (read from each CRD's names.kind), the kinds that need a health check. */
const SERVED_KINDS = readdirSync(join(REPO_ROOT, 'crds'))
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => {
    const crd = parseYaml(readFileSync(join(REPO_ROOT, 'crds', file), 'utf8')) as { spec: { names: { kind: string } } };
    return crd.spec.names.kind;
  })
  .sort();

/**
 * The conditions each kind's status can carry, with every status each can take: a kind's
 * testdata must show each (type, status) pair at least once, so no branch goes untested.
 */
const CONDITION_STATES: Record<string, string[]> = {
  AgentDeployment: ['Ready=True', 'Ready=False', 'Reconciling=True', 'Stalled=True'],
  PlatformConnection: ['Ready=True', 'Ready=False', 'Ready=Unknown', 'Reachable=True', 'Reachable=False'],
  ClusterPlatformConnection: ['Ready=True', 'Ready=False', 'Ready=Unknown', 'Reachable=True', 'Reachable=False'],
  TraceDeletion: ['Ready=True', 'Ready=False', 'Reconciling=True', 'Reconciling=False', 'Stalled=True', 'Stalled=False'],
  ExampleDeletion: ['Ready=True', 'Ready=False', 'Reconciling=True', 'Reconciling=False', 'Stalled=True', 'Stalled=False'],
};

/** The health statuses each kind can report (Suspended only where the spec can pause). */
const HEALTH_STATES: Record<string, string[]> = {
  AgentDeployment: ['Healthy', 'Progressing', 'Degraded', 'Suspended'],
  PlatformConnection: ['Healthy', 'Progressing', 'Degraded'],
  ClusterPlatformConnection: ['Healthy', 'Progressing', 'Degraded'],
  TraceDeletion: ['Healthy', 'Progressing', 'Degraded'],
  ExampleDeletion: ['Healthy', 'Progressing', 'Degraded'],
};

async function healthTestsOf(kindDir: string) {
  return HealthTestFile.parse(parseYaml(await readFile(join(kindDir, 'health_test.yaml'), 'utf8'))).tests;
}

async function objectIn(kindDir: string, inputPath: string): Promise<unknown> {
  return parseYaml(await readFile(join(kindDir, inputPath), 'utf8'));
}

interface StatusShape {
  status?: { conditions?: Array<{ type: string; status: string }> };
}

describe('Argo CD health checks', () => {
  it('exist for every kind the operator serves, and for nothing else', async () => {
    expect((await readdir(ARGOCD_CUSTOMIZATIONS_DIR)).sort()).toEqual(SERVED_KINDS);
    expect(Object.keys(CONDITION_STATES).sort()).toEqual(SERVED_KINDS);
  });

  it('are what the argocd-cm patch in deploy/argocd installs, byte for byte', async () => {
    const patch = parseYaml(await readFile(join(REPO_ROOT, 'deploy', 'argocd', 'argocd-cm-patch.yaml'), 'utf8')) as {
      data: Record<string, string>;
    };
    expect(Object.keys(patch.data).sort()).toEqual(
      SERVED_KINDS.map((kind) => `resource.customizations.health.agentplatform.io_${kind}`),
    );
    for (const kind of SERVED_KINDS) {
      expect(patch.data[`resource.customizations.health.agentplatform.io_${kind}`], kind).toBe(
        await readFile(join(ARGOCD_CUSTOMIZATIONS_DIR, kind, 'health.lua'), 'utf8'),
      );
    }
  });

  it('share one script between the two connection kinds and between the two deletion kinds', async () => {
    const script = (kind: string) => readFile(join(ARGOCD_CUSTOMIZATIONS_DIR, kind, 'health.lua'), 'utf8');
    expect(await script('ClusterPlatformConnection')).toBe(await script('PlatformConnection'));
    expect(await script('ExampleDeletion')).toBe(await script('TraceDeletion'));
  });
});

const TESTS_BY_KIND = new Map(
  await Promise.all(
    Object.keys(CONDITION_STATES).map(
      async (kind) => [kind, await healthTestsOf(join(ARGOCD_CUSTOMIZATIONS_DIR, kind))] as const,
    ),
  ),
);

describe.each(Object.keys(CONDITION_STATES))('Argo CD health check for %s (lua5.1)', (kind) => {
  const kindDir = join(ARGOCD_CUSTOMIZATIONS_DIR, kind);
  const script = join(kindDir, 'health.lua');
  const tests = TESTS_BY_KIND.get(kind) ?? [];

  it.each(tests.map((t) => [t.inputPath, t] as const))('%s', async (_path, test) => {
    const object = (await objectIn(kindDir, test.inputPath)) as { kind: string };
    expect(object.kind).toBe(kind);
    expect(await runHealthScript(script, object)).toEqual(test.healthStatus);
  });

  it('covers every file in testdata/, each health status and each condition state', async () => {
    const files = (await readdir(join(kindDir, 'testdata'))).map((f) => `testdata/${f}`).sort();
    expect(tests.map((t) => t.inputPath).sort()).toEqual(files);
    expect(new Set(tests.map((t) => t.healthStatus.status))).toEqual(new Set(HEALTH_STATES[kind]));
    const seen = new Set<string>();
    for (const test of tests) {
      const object = (await objectIn(kindDir, test.inputPath)) as StatusShape;
      for (const condition of object.status?.conditions ?? []) seen.add(`${condition.type}=${condition.status}`);
    }
    for (const state of CONDITION_STATES[kind] ?? []) expect(seen, `${kind} testdata with ${state}`).toContain(state);
  });
});

describe('Argo CD health check for AgentDeployment: order of the rules', () => {
  const SCRIPT = join(ARGOCD_HEALTH_DIR, 'health.lua');
  const object = (inputPath: string) => objectIn(ARGOCD_HEALTH_DIR, inputPath);

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
});
