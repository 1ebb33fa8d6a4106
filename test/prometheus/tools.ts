// Whether the real Prometheus binaries are here. In CI they must be (scripts/install-tools.sh
// installs Debian's prometheus package), so their absence there fails the run instead of
// skipping it; elsewhere the tests say why they skip.
import { spawnSync } from 'node:child_process';

function onPath(binary: string): boolean {
  return spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0;
}

export function prometheusMissing(): string | undefined {
  const missing = ['prometheus', 'promtool'].filter((binary) => !onPath(binary));
  if (missing.length === 0) return undefined;
  const reason = `${missing.join(' and ')} not installed (bash scripts/install-tools.sh installs Debian's prometheus package)`;
  if (process.env.CI) throw new Error(`CI must run the real-Prometheus tests: ${reason}`);
  return reason;
}
