// The operator's real image, run the way the chart runs it (uid 65532, read-only root
// filesystem, a writable /tmp only) against both emulators started in this process: it must
// answer /healthz and /readyz, and make an AgentDeployment Ready on its own.
//
// The image comes from AGENT_OPERATOR_IMAGE (.ci/run builds it in a step of its own) or is
// built here with scripts/build-image.sh. Without podman the suite fails in CI and is skipped,
// with the reason printed, elsewhere.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, containerAgent, isReady, Stack } from '../operator/harness.js';
import { REPO_ROOT } from './support/paths.js';
import { run } from './support/run.js';

const PODMAN = join(REPO_ROOT, 'scripts', 'podman.sh');
const BUILD = join(REPO_ROOT, 'scripts', 'build-image.sh');
const IN_CI = process.env.CI === 'true';
/** The non-root ids the Dockerfile's USER and the chart's securityContext use. */
const NONROOT = 65532;

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const given = process.env.AGENT_OPERATOR_IMAGE?.trim() || undefined;
const unavailable =
  !has('podman') || !has('runc')
    ? 'podman and runc are needed to build and run the image (Debian: apt-get install -y podman runc; scripts/build-image.sh installs them when run as root)'
    : undefined;
if (unavailable && !IN_CI) console.warn(`SKIPPED the image run test: ${unavailable}`);

function podman(args: string[]) {
  return run('bash', [PODMAN, ...args]);
}

async function podmanOk(args: string[]): Promise<string> {
  const result = await podman(args);
  if (result.code !== 0) {
    throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  }
  return result.stdout.trim();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

async function status(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

// In CI a missing podman is a failure of the setup, so the suite runs and says so.
describe.skipIf(unavailable !== undefined && !IN_CI)('the operator image, run read-only as non-root', () => {
  let image = '';
  let stack: Stack | undefined;
  let dir = '';
  let container = '';
  let metricsUrl = '';

  async function logs(): Promise<string> {
    const result = await podman(['logs', '--tail', '40', container]);
    return `${result.stdout}${result.stderr}`;
  }

  async function running(): Promise<boolean> {
    return (await podmanOk(['inspect', '--format', '{{.State.Running}}', container])) === 'true';
  }

  beforeAll(async () => {
    if (unavailable) throw new Error(`the image cannot be built or run here: ${unavailable}`);
    if (given) {
      image = given;
    } else {
      const built = await run('bash', [BUILD]);
      if (built.code !== 0) {
        throw new Error(`scripts/build-image.sh failed (${built.code}):\n${built.stderr.slice(-4_000)}`);
      }
      image = built.stdout.trim().split('\n').at(-1) ?? '';
    }
    const exists = await podman(['image', 'exists', image]);
    if (exists.code !== 0) throw new Error(`the image ${image} is not in podman's storage`);

    stack = await Stack.start({ withoutOperator: true });
    // What the container mounts read-only: a directory of its own, readable by uid 65532
    // (mkdtemp makes it 0700 and root's).
    dir = await mkdtemp(join(tmpdir(), 'agent-operator-image-'));
    await chmod(dir, 0o755);
    await copyFile(stack.kube.kubeconfigPath ?? '', join(dir, 'kubeconfig'));
    await writeFile(join(dir, 'api-key'), `${API_KEY}\n`);
    await chmod(join(dir, 'kubeconfig'), 0o644);
    await chmod(join(dir, 'api-key'), 0o644);

    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}`;
    container = `agent-operator-image-test-${randomBytes(4).toString('hex')}`;
    await podmanOk([
      'run',
      '--detach',
      '--name',
      container,
      '--read-only',
      '--user',
      `${NONROOT}:${NONROOT}`,
      '--tmpfs',
      '/tmp',
      // The emulators listen on the host's loopback.
      '--network',
      'host',
      '--volume',
      `${dir}:/etc/agent-operator:ro`,
      image,
      'run',
      '--kubeconfig',
      '/etc/agent-operator/kubeconfig',
      '--control-plane-url',
      stack.controlPlane.url,
      '--api-key-file',
      '/etc/agent-operator/api-key',
      '--metrics-bind-address',
      `127.0.0.1:${port}`,
      '--poll-interval',
      '250ms',
    ]);
  }, 900_000);

  afterAll(async () => {
    if (container) await podman(['rm', '--force', '--time', '0', container]);
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers /healthz and /readyz with 200', async () => {
    const deadline = Date.now() + 60_000;
    let ready: number | undefined;
    while (Date.now() < deadline) {
      ready = await status(`${metricsUrl}/readyz`);
      if (ready === 200) break;
      if (!(await running()))
        throw new Error(`the container exited before /readyz answered:\n${await logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ready, `/readyz never answered 200; logs:\n${await logs()}`).toBe(200);
    expect(await status(`${metricsUrl}/healthz`)).toBe(200);
  });

  it('runs the heap settle: the entry point exposes gc to run', async () => {
    const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^# TYPE agent_operator_heap_settle_collections_total counter$/m);
  });

  it('runs its process as uid and gid 65532, on a root filesystem it cannot write', async () => {
    const pid = await podmanOk(['inspect', '--format', '{{.State.Pid}}', container]);
    // The host's view of the process, not what the image claims: the real and effective ids.
    const procStatus = await readFile(`/proc/${pid}/status`, 'utf8');
    expect(procStatus).toMatch(new RegExp(`^Uid:\\s+${NONROOT}\\s+${NONROOT}\\s`, 'm'));
    expect(procStatus).toMatch(new RegExp(`^Gid:\\s+${NONROOT}\\s+${NONROOT}\\s`, 'm'));
    // The image's own entry point and command, then the arguments given to `podman run`.
    expect(await readFile(`/proc/${pid}/cmdline`, 'utf8')).toMatch(
      /^node\0--expose-gc\0--max-semi-space-size=4\0dist\/cli\.js\0run\0--kubeconfig\0/,
    );
    // glibc reads its malloc settings from the environment the process started with.
    expect((await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0')).toContain(
      'MALLOC_TRIM_THRESHOLD_=131072',
    );

    const probe = await podman([
      'exec',
      container,
      'node',
      '-e',
      `const fs = require('node:fs');
       const tryWrite = (p) => { try { fs.writeFileSync(p, 'x'); fs.rmSync(p); return 'written'; } catch (e) { return e.code; } };
       console.log(JSON.stringify({ app: tryWrite('/app/probe'), root: tryWrite('/probe'), tmp: tryWrite('/tmp/probe') }));`,
    ]);
    expect(probe.code, probe.stderr).toBe(0);
    expect(JSON.parse(probe.stdout)).toEqual({ app: 'EROFS', root: 'EROFS', tmp: 'written' });
  });

  it('reports the commit it was built from (the VCS_REF build argument)', async () => {
    const version = await podmanOk(['exec', container, 'node', 'dist/cli.js', '--version']);
    expect(version).toMatch(/^agent-operator \d+\.\d+\.\d+ \(commit [0-9a-f]{40}\)$/);
  });

  it('holds production dependencies only, and no npm', async () => {
    const probe = await podman([
      'exec',
      container,
      'sh',
      '-c',
      'ls /app/node_modules; command -v npm npx corepack || true',
    ]);
    expect(probe.code, probe.stderr).toBe(0);
    const present = probe.stdout.split('\n');
    expect(present).toContain('@kubernetes');
    expect(present).toContain('zod');
    for (const devOnly of ['typescript', 'vitest', 'eslint', 'prettier', 'tsx', 'testcontainers']) {
      expect(present, devOnly).not.toContain(devOnly);
    }
    expect(probe.stdout).not.toMatch(/\/(npm|npx|corepack)$/m);
  });

  it('holds no emulator and no demo code, and its program offers neither', async () => {
    const listing = await podmanOk(['exec', container, 'sh', '-c', 'cd /app/dist && find . -name "*.js"']);
    const files = listing.split('\n').map((line) => line.replace(/^\.\//, ''));
    expect(files).toContain('cli.js');
    expect(files).toContain('operator/cli.js');
    expect(files.filter((f) => /^(sim|demo)\//.test(f) || f.startsWith('dev-cli.'))).toEqual([]);
    for (const command of [['demo'], ['emulate', 'kube']]) {
      const attempt = await podman(['exec', container, 'node', 'dist/cli.js', ...command]);
      expect(attempt.code, attempt.stdout).toBe(2);
      expect(attempt.stderr).toContain(`unknown command "${command.join(' ')}"`);
    }
  });

  it('makes an AgentDeployment applied to the cluster Ready', async () => {
    const live = stack as Stack;
    const listenerId = await live.listenerId();
    await live.apply(containerAgent('from-the-image', listenerId));
    const ready = await live
      .waitFor('from-the-image', isReady, 'Ready', 60_000)
      .catch(async (error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nlogs:\n${await logs()}`);
      });
    expect(ready.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    // No operator runs in this process: the deployment was created by the container's.
    const deployments = await live.deployments();
    expect(deployments.map((d) => d.id)).toEqual([ready.status?.deploymentId]);
  });
});
