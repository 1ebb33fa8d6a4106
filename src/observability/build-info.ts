// agent_operator_build_info: which version and commit is running, as a constant 1 with the
// facts as labels (the Prometheus convention for build facts), so an alert, a dashboard or
// `count by (version)` can tell a half-finished rollout from a finished one.
import { Gauge, type Registry } from 'prom-client';
import { buildCommit, packageVersion } from '../version.js';

export interface BuildFacts {
  version: string;
  commit: string;
}

let runningBuild: BuildFacts | undefined;

/** Read once per process: the commit may take a `git` call, and it cannot change while running. */
function thisBuild(): BuildFacts {
  runningBuild ??= { version: packageVersion(), commit: buildCommit() };
  return runningBuild;
}

export function bindBuildInfo(registry: Registry, facts: BuildFacts = thisBuild()): void {
  const info = new Gauge({
    name: 'agent_operator_build_info',
    help: 'The running operator: version (package.json), commit (VCS_REF at image build, else git) and Node.js version; always 1.',
    labelNames: ['version', 'commit', 'nodejs_version'],
    registers: [registry],
  });
  info.set({ version: facts.version, commit: facts.commit, nodejs_version: process.versions.node }, 1);
}
