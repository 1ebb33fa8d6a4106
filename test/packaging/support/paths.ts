// Where the packaging tests find the project's files and the real third-party tools.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const CHART_DIR = join(REPO_ROOT, 'charts', 'agent-operator');
export const CHART_CRD_FILE = join(CHART_DIR, 'files', 'crds', 'agentplatform.io_agentdeployments.yaml');
export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
/** Argo CD's layout: one folder per kind, each with health.lua, health_test.yaml and testdata/. */
export const ARGOCD_CUSTOMIZATIONS_DIR = join(REPO_ROOT, 'deploy', 'argocd', 'resource_customizations', 'agentplatform.io');
export const ARGOCD_HEALTH_DIR = join(ARGOCD_CUSTOMIZATIONS_DIR, 'AgentDeployment');
export const HELM = join(REPO_ROOT, '.tools', 'bin', 'helm');
export const KUBECTL = join(REPO_ROOT, '.tools', 'bin', 'kubectl');

/** The tools come from `bash scripts/install-tools.sh`; a missing one is a setup error, not a skip. */
export function requireTool(path: string): string {
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: run \`bash scripts/install-tools.sh\` first`);
  }
  return path;
}
