// `agent-operator demo`: the operator at work with nothing installed. It starts the embedded
// Kubernetes and control-plane emulators (or uses the cluster and control plane the user
// names), applies crds/ and examples/, runs the operator, shows every AgentDeployment moving
// to Ready, rolls out one update, and ends with a summary. Exit 0 when all of it worked;
// non-zero with the reason when anything failed or timed out. `--keep` leaves it running.
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createLogger } from '../observability/logger.js';
import { parseDuration } from '../operator/duration.js';
import { AGENT_DEPLOYMENTS, startOperator, type RunningOperator } from '../operator/operator.js';
import { kubeClientFrom } from '../runtime/kube/cluster-access.js';
import type { KubeClient } from '../runtime/kube/client.js';
import { startDemoEnvironment, type DemoEnvironment } from './environment.js';
import { createView, type DemoView } from './live-view.js';
import { applyObject, readManifests, type Manifest } from './manifests.js';
import { rowOf, type DemoRow } from './rows.js';
import { callSummary } from './summary.js';
import { resolveExampleIds } from './resolve-ids.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const DEMO_USAGE = `Usage: agent-operator demo [flags]

Starts the embedded Kubernetes API and control-plane emulators and the operator, applies
crds/ and examples/, shows each AgentDeployment reach Ready, rolls out one update, and exits
0 with a summary (non-zero if anything fails or times out).

  --keep                     leave everything running and print what to type next
  --timeout <duration>       give up after this long (default 120s)
  --plain                    plain line output even on a terminal (default when not a TTY or CI=true)
  --revision-phase-ms <n>    the emulated control plane's time per revision state (default 400)
  --kubeconfig <path>        use this cluster instead of the embedded emulator
  --control-plane-url <url>  use this control plane instead of the embedded emulator
                             (API key: --api-key-file <path> or AGENT_OPERATOR_API_KEY)
  --api-key-file <path>
  --examples <dir>           manifests to apply (default: the package's examples/)
`;

interface DemoFlags {
  keep: boolean;
  timeoutMs: number;
  plain: boolean;
  revisionPhaseMs: number;
  kubeconfig?: string;
  controlPlaneUrl?: string;
  apiKey?: string;
  examples: string;
}

function parseFlags(argv: string[]): DemoFlags | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      keep: { type: 'boolean' },
      timeout: { type: 'string' },
      plain: { type: 'boolean' },
      'revision-phase-ms': { type: 'string' },
      kubeconfig: { type: 'string' },
      'control-plane-url': { type: 'string' },
      'api-key-file': { type: 'string' },
      examples: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const timeoutMs = parseDuration(values.timeout ?? '120s');
  if (timeoutMs === undefined)
    throw new Error(`--timeout: must be a duration such as 90s or 5m; got "${values.timeout ?? ''}"`);
  const phase = Number(values['revision-phase-ms'] ?? '400');
  if (!Number.isInteger(phase) || phase < 0)
    throw new Error('--revision-phase-ms: must be a whole number of milliseconds');
  const keyFile = values['api-key-file'];
  const apiKey = keyFile ? readFileSync(keyFile, 'utf8').trim() : process.env.AGENT_OPERATOR_API_KEY;
  return {
    keep: values.keep ?? false,
    timeoutMs,
    plain: values.plain ?? false,
    revisionPhaseMs: phase,
    kubeconfig: values.kubeconfig,
    controlPlaneUrl: values['control-plane-url'],
    apiKey,
    examples: values.examples ?? join(REPO_ROOT, 'examples'),
  };
}

export async function main(argv: string[]): Promise<number> {
  let flags: DemoFlags | 'help';
  try {
    flags = parseFlags(argv);
  } catch (error) {
    process.stderr.write(
      `agent-operator demo: ${error instanceof Error ? error.message : String(error)}\n\n${DEMO_USAGE}`,
    );
    return 2;
  }
  if (flags === 'help') {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const interactive = Boolean(process.stdout.isTTY) && !flags.plain && process.env.CI !== 'true';
  const view = createView(process.stdout, interactive);
  const run = new DemoRun(flags, view);
  try {
    return await run.execute();
  } catch (error) {
    view.line(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}`);
    if (run.logPath) view.line(`operator log: ${run.logPath}`);
    return 1;
  } finally {
    await run.close();
  }
}

class DemoRun {
  logPath: string | undefined;
  private environment: DemoEnvironment | undefined;
  private operator: RunningOperator | undefined;
  private readonly startedAt = Date.now();
  private readonly readyAt = new Map<string, number>();

  constructor(
    private readonly flags: DemoFlags,
    private readonly view: DemoView,
  ) {}

  async execute(): Promise<number> {
    const deadline = this.startedAt + this.flags.timeoutMs;
    this.view.phase('Starting');
    const quiet = createLogger({ level: 'warn', name: 'demo' });
    const environment = await startDemoEnvironment({
      kubeconfig: this.flags.kubeconfig,
      controlPlaneUrl: this.flags.controlPlaneUrl,
      apiKey: this.flags.apiKey,
      revisionPhaseMs: this.flags.revisionPhaseMs,
      logger: quiet,
    });
    this.environment = environment;
    this.view.line(
      `kubernetes: ${environment.embeddedKube ? 'embedded emulator' : environment.kubeconfigPath}` +
        ` · control plane: ${environment.embeddedControlPlane ? `embedded emulator at ${environment.controlPlaneUrl}` : environment.controlPlaneUrl}`,
    );
    const { client } = kubeClientFrom(environment.kubeConfig);

    const crds = await readManifests(join(REPO_ROOT, 'crds'));
    for (const crd of crds) await applyObject(client, crd);
    this.view.line(`applied ${crds.length} CustomResourceDefinition(s) from crds/`);

    this.logPath = join(environment.stateDir, 'operator.log');
    const logFile = await open(this.logPath, 'a');
    this.operator = await startOperator({
      config: {
        region: 'us',
        controlPlaneUrl: environment.controlPlaneUrl,
        apiKey: environment.apiKey,
        namespaces: [],
        concurrency: 4,
        resyncPeriodMs: 60_000,
        pollIntervalMs: Math.max(200, this.flags.revisionPhaseMs),
        leaderElect: false,
        leaderElectionNamespace: 'default',
        leaderElectionId: 'agent-operator',
        metricsBindAddress: { host: '127.0.0.1', port: 0 },
        logLevel: 'info',
      },
      logger: createLogger({
        level: 'info',
        name: 'agent-operator',
        destination: logFile.createWriteStream(),
      }),
      kubeConfig: environment.kubeConfig,
      identity: 'demo',
      reconciler: { minRevisionPollMs: Math.max(200, this.flags.revisionPhaseMs) },
    });
    this.view.line(
      `operator running; metrics at ${this.operator.metricsUrl ?? '-'}/metrics; log in ${this.logPath}`,
    );

    const examples = await readManifests(this.flags.examples);
    if (!environment.embeddedControlPlane) await resolveExampleIds(examples, environment);
    for (const object of examples) await applyObject(client, object);
    const agents = examples.filter((object) => object.kind === 'AgentDeployment');
    if (agents.length === 0) throw new Error(`no AgentDeployment in ${this.flags.examples}`);
    this.view.line(`applied ${examples.length} objects from examples/ (${agents.length} AgentDeployments)`);

    this.view.phase('Creating the deployments');
    await this.watchUntil(client, agents, deadline, (rows) => rows.every((row) => row.settled));

    const target =
      agents.find(
        (object) => (object.spec as { source?: string } | undefined)?.source === 'external_container',
      ) ?? agents[0];
    if (!target) throw new Error('nothing to update');
    const updateStarted = Date.now();
    const before = rowOf(await this.read(client, target));
    const update = updateFor(target);
    this.view.phase(`Updating ${target.metadata.name}: ${update.description}`);
    await client.mergePatch(AGENT_DEPLOYMENTS, target.metadata.namespace, target.metadata.name, {
      spec: update.spec,
    });
    await this.watchUntil(
      client,
      agents,
      deadline,
      (rows) =>
        rows.every((row) => row.settled) &&
        rows.some((row) => row.name === target.metadata.name && row.activeRevision !== before.activeRevision),
    );
    const updateSeconds = (Date.now() - updateStarted) / 1000;

    await this.printSummary(agents, updateSeconds);
    if (this.flags.keep) await this.keepRunning();
    return 0;
  }

  private async read(client: KubeClient, object: Manifest): Promise<Manifest> {
    return client.get<Manifest>(AGENT_DEPLOYMENTS, object.metadata.namespace, object.metadata.name);
  }

  private async watchUntil(
    client: KubeClient,
    agents: Manifest[],
    deadline: number,
    done: (rows: DemoRow[]) => boolean,
  ): Promise<void> {
    for (;;) {
      const rows = await Promise.all(agents.map(async (agent) => rowOf(await this.read(client, agent))));
      for (const row of rows)
        if (row.settled && !this.readyAt.has(row.name)) this.readyAt.set(row.name, Date.now());
      this.view.rows(rows, Date.now() - this.startedAt);
      const stalled = rows.find((row) => row.stalled);
      if (stalled) throw new Error(`${stalled.name} is Stalled: ${stalled.message}`);
      if (done(rows)) return;
      if (Date.now() > deadline) {
        const waiting = rows
          .filter((row) => !row.settled)
          .map((row) => `${row.name} (${row.reason}: ${row.message})`);
        throw new Error(`timed out after ${this.flags.timeoutMs / 1000}s; not Ready: ${waiting.join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  private async printSummary(agents: Manifest[], updateSeconds: number): Promise<void> {
    const operator = this.operator;
    if (!operator) return;
    const calls = await callSummary(operator.registry);
    this.view.phase('Summary');
    for (const agent of agents) {
      const at = this.readyAt.get(agent.metadata.name);
      this.view.line(
        `  ${agent.metadata.name.padEnd(24)} Ready after ${at ? ((at - this.startedAt) / 1000).toFixed(1) : '?'} s`,
      );
    }
    this.view.line(`  update rolled out in ${updateSeconds.toFixed(1)} s`);
    this.view.line(
      `  control-plane calls: ${calls.total} (${calls.byRoute.map((r) => `${r.method} ${r.route} ${r.count}`).join(', ')})`,
    );
    this.view.line(`  429 responses received: ${calls.throttled429}`);
    this.view.line(`demo: all ${agents.length} AgentDeployments Ready, update deployed`);
  }

  private async keepRunning(): Promise<void> {
    const environment = this.environment;
    if (!environment) return;
    this.view.phase('Still running (--keep); press Ctrl-C to stop');
    this.view.line(`  kubectl --kubeconfig ${environment.kubeconfigPath} get agd -A -w`);
    this.view.line(
      `  control plane: ${environment.controlPlaneUrl} (API key "${environment.embeddedControlPlane ? 'emulator-key' : '<yours>'}")`,
    );
    if (environment.adminToken !== undefined) {
      this.view.line(
        `  admin API:     ${environment.controlPlaneUrl}/_emulator/ (Authorization: Bearer ${environment.adminToken})`,
      );
    }
    this.view.line(`  metrics:       ${this.operator?.metricsUrl ?? '-'}/metrics`);
    this.view.line(`  operator log:  ${this.logPath ?? '-'}`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
  }

  async close(): Promise<void> {
    await this.operator?.stop();
    await this.environment?.close();
  }
}

/** The one change the demo rolls out: a new image tag, or for a repo_host agent a new ref. */
function updateFor(object: Manifest): { spec: Record<string, unknown>; description: string } {
  const spec = (object.spec ?? {}) as { sourceRevisionConfig?: { imageUri?: string; repoRef?: string } };
  const image = spec.sourceRevisionConfig?.imageUri;
  if (image) {
    const next = image.replace(/:[^:/]+$/, '') + ':demo-update';
    return { spec: { sourceRevisionConfig: { imageUri: next } }, description: `image ${next}` };
  }
  return { spec: { sourceRevisionConfig: { repoRef: 'demo-update' } }, description: 'repoRef demo-update' };
}
