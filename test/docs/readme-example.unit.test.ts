// The README's AgentDeployment example must be one the API server accepts: it is the first
// thing a user copies. It goes through the CRD's own schema and CEL rules.
import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { validateAgentDeploymentSpec } from '../../src/api/validation/validate-spec.js';

describe('README', () => {
  it('shows an AgentDeployment that passes the CRD validation', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
    const example = blocks.map((text) => yaml.load(text) as { kind?: string; spec?: unknown }).find((doc) => doc?.kind === 'AgentDeployment');
    expect(example, 'an AgentDeployment example').toBeDefined();
    expect(validateAgentDeploymentSpec(example?.spec)).toEqual([]);
  });

  it('names the two commands of the quick start', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });
});
