// What `agent-operator --version` prints: the package's version and the commit it was built
// from. The commit comes from AGENT_OPERATOR_COMMIT, which the image sets from the build
// argument VCS_REF (`docker build --build-arg VCS_REF=$(git rev-parse HEAD)`), else from git
// itself when running from a clone, else "unknown".
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package root, from src/ (tsx) and from dist/ (compiled) alike. */
const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * The package's version, or "unknown" when its manifest cannot be read: the operator's start
 * (build_info) must not depend on a file that only describes it.
 */
export function packageVersion(root: string = PACKAGE_ROOT): string {
  try {
    const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function buildCommit(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.AGENT_OPERATOR_COMMIT?.trim();
  if (fromEnv && fromEnv !== 'unknown') return fromEnv;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    }).trim();
  } catch {
    return 'unknown';
  }
}

export function versionLine(env: NodeJS.ProcessEnv = process.env): string {
  return `agent-operator ${packageVersion()} (commit ${buildCommit(env)})`;
}
