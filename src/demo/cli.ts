// `agent-operator demo`: the operator at work with nothing installed. It starts the embedded
// Kubernetes and control-plane emulators (or uses the cluster and control plane the user
// names), applies crds/ and examples/, runs the operator, shows every AgentDeployment moving
// to Ready, rolls out one update, asks the updated agent a message, and ends with a summary.
// With its embedded control plane it also shows a second connection (an EU control plane with
// its own key) with an agent on it, and a TraceDeletion and an ExampleDeletion.
// Exit 0 when all of it worked; non-zero with the reason when anything failed or timed out.
// `--keep` leaves it running.
import { existsSync, readFileSync } from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import yaml from 'js-yaml';
import { createLogger } from '../observability/logger.js';
import { DURATION_RULE, parseDurationFlag } from '../command-line/duration-flag.js';
import { flagErrorLine, flagProblem, USAGE_EXIT_CODE } from '../command-line/flag-error.js';
import { AGENT_DEPLOYMENTS, startOperator, type RunningOperator } from '../operator/operator.js';
import { kubeClientFrom } from '../runtime/kube/cluster-access.js';
import type { KubeClient } from '../runtime/kube/client.js';
import { startDemoEnvironment, type DemoEnvironment } from './environment.js';
import { createView, type DemoView } from './live-view.js';
import { DemoFootprint, labelled, namespacesOf } from './footprint.js';
import { keepBanner, stoppedLines } from './keep-banner.js';
import { applyObject, readManifests, type Manifest } from './manifests.js';
import { rowOf, type DemoRow } from './rows.js';
import { askAgent } from './ask-agent.js';
import { callSummary } from './summary.js';
import { resolveExampleIds } from './resolve-ids.js';
import { runDeletionDemo } from './deletion-demo.js';
import { followAgents } from './agent-watch.js';
import { applySecondConnection, setUpSecondConnection } from './second-connection.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const DEMO_USAGE = `Usage: agent-operator demo [flags]

Starts the embedded Kubernetes API and control-plane emulators (a US and an EU region) and
the operator, applies crds/ and examples/ plus an EU connection with an agent on it, shows
each AgentDeployment reach Ready, rolls out one update, deletes data through a TraceDeletion
and an ExampleDeletion, and exits 0 with a summary (non-zero if anything fails or times out).

  --keep                     leave everything running and print what to type next
  --timeout <duration>       give up after this long: 90s, 5m; a bare number is seconds (default 120s)
  --plain                    plain line output even on a terminal (default when not a TTY or CI=true)
  --revision-phase-ms <n>    the emulated control plane's time per revision state (default 400)
  --kubeconfig <path>        use this cluster instead of the embedded emulator
  --context <name>           a context of that kubeconfig (alone: of KUBECONFIG or ~/.kube/config)
  --control-plane-url <url>  use this control plane instead of the embedded emulator
                             (API key: --api-key-file <path> or AGENT_OPERATOR_API_KEY)
  --api-key-file <path>
  --examples <dir>           manifests to apply (default: the package's examples/)
  -h, --help                 show this help

With --kubeconfig (or --context) the demo works only in the examples' namespace (agents-demo), refuses it
if it exists and was not created by a demo, installs the CRD only if it is missing, and at
the end deletes everything it created (the CRD only if it installed it) unless --keep.

Examples:
  agent-operator demo
  agent-operator demo --keep                 # then paste the kubectl commands it prints
  agent-operator demo --kubeconfig ~/.kube/config --timeout 5m
  AGENT_OPERATOR_API_KEY=... agent-operator demo --control-plane-url https://api.host.langchain.com
`;

interface DemoFlags {
  keep: boolean;
  timeoutMs: number;
  plain: boolean;
  revisionPhaseMs: number;
  kubeconfig?: string;
  context?: string;
  controlPlaneUrl?: string;
  apiKey?: string;
  examples: string;
}

function parseFlags(argv: string[]): DemoFlags | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      options: {
        keep: { type: 'boolean' },
        timeout: { type: 'string' },
        plain: { type: 'boolean' },
        'revision-phase-ms': { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'control-plane-url': { type: 'string' },
        'api-key-file': { type: 'string' },
        examples: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new Error(flagProblem(error));
  }
  const { values } = parsed;
  if (values.help) return 'help';
  const timeoutMs = parseDurationFlag(values.timeout ?? '120s');
  if (timeoutMs === undefined || timeoutMs <= 0)
    throw new Error(`--timeout: must be ${DURATION_RULE}; got "${values.timeout ?? ''}"`);
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
    context: values.context,
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
    process.stderr.write(flagErrorLine('demo', error instanceof Error ? error.message : String(error)));
    return USAGE_EXIT_CODE;
  }
  if (flags === 'help') {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const interactive = Boolean(process.stdout.isTTY) && !flags.plain && process.env.CI !== 'true';
  const view = createView(process.stdout, interactive);
  const run = new DemoRun(flags, view);
  let code: number;
  try {
    code = await run.execute();
  } catch (error) {
    view.line(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}`);
    if (run.logPath) view.line(`operator log: ${run.logPath}`);
    code = 1;
  }
  const cleanedUp = await run.close();
  return cleanedUp ? code : Math.max(code, 1);
}

/** How long the operator gets to delete each control-plane deployment before clean-up strips its finalizer. */
const CLEAN_UP_GRACE_MS = 30_000;
/** What the demo asks the updated agent at the end. */
const DEMO_MESSAGE = 'Hello from the agent-operator demo';

class DemoRun {
  logPath: string | undefined;
  private environment: DemoEnvironment | undefined;
  private operator: RunningOperator | undefined;
  private footprint: DemoFootprint | undefined;
  private succeeded = false;
  /** When the examples were applied: every "Ready after" is measured from here. */
  private appliedAt = Date.now();
  private readonly readyAt = new Map<string, number>();
  private readonly lastConsistent = new Map<string, DemoRow>();
  private closeKubeTransport: () => void = () => {};
  /** The target's manifest with the demo's update, as applied (for --keep's edit-and-apply). */
  private updatedManifest: string | undefined;
  /** What the demo rolled out to (its update) and what examples/ still says, for --keep. */
  private rolledOut: { name: string; from: string; to: string } | undefined;
  /** --keep was ended by Ctrl-C (or SIGTERM): say what is left and how to clean up. */
  private keptUntilStopped = false;
  /** The demo's agent on its EU PlatformConnection, when there is one. */
  private connectionAgent: string | undefined;

  /** Set by the first Ctrl-C (or SIGTERM): the demo stops and cleans up; a second one ends it at once. */
  private stopRequested = false;
  private readonly stopped: Promise<void>;
  private readonly onStopSignal: () => void;

  constructor(
    private readonly flags: DemoFlags,
    private readonly view: DemoView,
  ) {
    let resolveStopped = (): void => {};
    this.stopped = new Promise((resolve) => (resolveStopped = resolve));
    this.onStopSignal = () => {
      this.stopRequested = true;
      process.off('SIGINT', this.onStopSignal);
      process.off('SIGTERM', this.onStopSignal);
      resolveStopped();
    };
    process.on('SIGINT', this.onStopSignal);
    process.on('SIGTERM', this.onStopSignal);
  }

  async execute(): Promise<number> {
    const deadline = Date.now() + this.flags.timeoutMs;
    this.view.phase('Starting');
    const quiet = createLogger({ level: 'warn', name: 'demo' });
    const environment = await startDemoEnvironment({
      kubeconfig: this.flags.kubeconfig,
      context: this.flags.context,
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
    const { client, transport } = kubeClientFrom(environment.kubeConfig);
    this.closeKubeTransport = () => transport.close();
    const footprint = new DemoFootprint(client, (line) => this.view.line(line));
    this.footprint = footprint;

    const examples = await readManifests(this.flags.examples);
    const agents = examples.filter((object) => object.kind === 'AgentDeployment');
    if (agents.length === 0) throw new Error(`no AgentDeployment in ${this.flags.examples}`);
    const namespaces = namespacesOf(examples);
    const leftovers = await footprint.claimNamespaces(namespaces);
    await footprint.installCrds(await readManifests(join(REPO_ROOT, 'crds')), deadline);

    this.logPath = join(environment.stateDir, 'operator.log');
    const logFile = await open(this.logPath, 'a');
    this.operator = await startOperator({
      config: {
        region: 'us',
        controlPlaneUrl: environment.controlPlaneUrl,
        apiKey: environment.apiKey,
        // Only the demo's own namespaces: on a real cluster nothing else is watched or written.
        namespaces,
        concurrency: 4,
        resyncPeriodMs: 60_000,
        pollIntervalMs: Math.max(200, this.flags.revisionPhaseMs),
        leaderElect: false,
        leaderElectionNamespace: 'default',
        leaderElectionId: 'agent-operator',
        metricsBindAddress: { host: '127.0.0.1', port: 0 },
        logLevel: 'info',
        // Seconds, not hours, so that the demo shows verification after the simulated job.
        deletionVerifyIntervalMs: 500,
        // The demo's own namespaces delete data through the default connection: the person
        // running the demo owns its key. A shared install allows only the operator's namespace.
        dataDeletionNamespaces: namespaces,
        // The embedded emulators (and the EU PlatformConnection to them) listen on loopback.
        allowPrivateNetworks: environment.embeddedControlPlane,
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
      `operator running in ${namespaces.join(', ')}; metrics at ${this.operator.metricsUrl ?? '-'}/metrics; log in ${this.logPath}`,
    );
    for (const namespace of leftovers) {
      this.view.line(`namespace ${namespace} is left from an earlier demo run: emptying it first`);
      if (environment.secondRegion)
        await applySecondConnection({ client, namespace, ...environment.secondRegion });
      await footprint.clear(namespace, CLEAN_UP_GRACE_MS);
    }

    if (!environment.embeddedControlPlane) await resolveExampleIds(examples, environment);
    this.appliedAt = Date.now();
    // The agents as applied: the view shows what happened to them from there on.
    const applied: Manifest[] = [];
    for (const object of examples) applied.push(await applyObject(client, labelled(object), object));
    this.view.line(`applied ${examples.length} objects from examples/ (${agents.length} AgentDeployments)`);
    const secondRegion = environment.secondRegion;
    if (secondRegion) {
      const euAgent = await setUpSecondConnection({
        client,
        namespace: agents[0]?.metadata.namespace ?? 'default',
        ...secondRegion,
        deadline,
        line: (text) => this.view.line(text),
      });
      applied.push(await applyObject(client, labelled(euAgent), euAgent));
      agents.push(euAgent);
      this.connectionAgent = euAgent.metadata.name;
      this.view.line(`applied ${euAgent.metadata.name}, which deploys to the EU through that connection`);
    }

    this.view.phase('Creating the deployments');
    await this.watchUntil(client, agents, deadline, (rows) => rows.every((row) => row.settled), applied);

    const target =
      agents.find(
        (object) => (object.spec as { source?: string } | undefined)?.source === 'external_container',
      ) ?? agents[0];
    if (!target) throw new Error('nothing to update');
    const updateStarted = Date.now();
    const before = rowOf(await this.read(client, target));
    const update = updateFor(target);
    this.view.phase(`Updating ${target.metadata.name}: ${update.description}`);
    // Rolled out as an edited manifest, applied as `kubectl apply` would: the file is kept for
    // --keep, so that the user's own edit-and-apply starts from what is deployed.
    this.updatedManifest = join(environment.stateDir, `${target.metadata.name}.yaml`);
    await writeFile(this.updatedManifest, manifestFile(update.manifest, update.description));
    await applyObject(client, labelled(update.manifest), update.manifest);
    this.rolledOut = { name: target.metadata.name, from: update.from, to: update.to };
    await this.watchUntil(
      client,
      agents,
      deadline,
      (rows) =>
        rows.every((row) => row.settled) &&
        rows.some((row) => row.name === target.metadata.name && row.activeRevision !== before.activeRevision),
    );
    const updateSeconds = (Date.now() - updateStarted) / 1000;

    this.view.phase(`Asking ${target.metadata.name} (the updated revision answers)`);
    const reply = await askAgent(
      await this.read(client, target),
      environment.apiKey,
      DEMO_MESSAGE,
      Math.max(deadline - Date.now(), 1_000),
    );
    this.view.line(`  ${target.metadata.name} answered: ${JSON.stringify(reply)}`);
    if (environment.embeddedControlPlane) {
      this.view.phase('Deleting data: a TraceDeletion and an ExampleDeletion');
      await runDeletionDemo({
        client,
        platformUrl: environment.controlPlaneUrl,
        apiKey: environment.apiKey,
        namespace: target.metadata.namespace ?? 'default',
        deadline,
        line: (text) => this.view.line(text),
      });
    }

    await this.printSummary(agents, updateSeconds);
    this.succeeded = true;
    if (this.flags.keep) await this.keepRunning(target);
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
    applied: Manifest[] = [],
  ): Promise<void> {
    let rows: DemoRow[] = [];
    const show = (objects: Manifest[]): boolean => {
      rows = objects.map((object) => {
        const row = rowOf(object);
        const shown = row.consistent ? row : (this.lastConsistent.get(row.name) ?? row);
        this.lastConsistent.set(row.name, shown);
        return shown;
      });
      for (const row of rows)
        if (row.settled && !this.readyAt.has(row.name)) this.readyAt.set(row.name, Date.now());
      this.view.rows(rows, Date.now() - this.appliedAt);
      const stalled = rows.find((row) => row.stalled);
      if (stalled) throw new Error(`${stalled.name} is Stalled: ${stalled.message}`);
      return done(rows);
    };
    // Ends the watches at the deadline or on Ctrl-C.
    const stop = new AbortController();
    const check = setInterval(() => {
      if (this.stopRequested || Date.now() > deadline) stop.abort();
    }, 100);
    try {
      if (await followAgents(client, agents, show, stop.signal, applied)) return;
    } finally {
      clearInterval(check);
    }
    if (this.stopRequested) throw new Error('interrupted');
    const waiting = rows
      .filter((row) => !row.settled)
      .map((row) => `${row.name} (${row.reason}: ${row.message})`);
    throw new Error(`timed out after ${this.flags.timeoutMs / 1000}s; not Ready: ${waiting.join(', ')}`);
  }

  private async printSummary(agents: Manifest[], updateSeconds: number): Promise<void> {
    const operator = this.operator;
    if (!operator) return;
    const calls = await callSummary(operator.registry);
    this.view.phase('Summary');
    for (const agent of agents) {
      const at = this.readyAt.get(agent.metadata.name);
      this.view.line(
        `  ${agent.metadata.name.padEnd(24)} Ready after ${at ? ((at - this.appliedAt) / 1000).toFixed(1) : '?'} s`,
      );
    }
    this.view.line(`  update rolled out in ${updateSeconds.toFixed(1)} s`);
    this.view.line(
      `  control-plane calls: ${calls.total} (${calls.byRoute.map((r) => `${r.method} ${r.route} ${r.count}`).join(', ')})`,
    );
    this.view.line(`  429 responses received: ${calls.throttled429}`);
    this.view.line(`demo: all ${agents.length} AgentDeployments Ready, update deployed`);
  }

  private async keepRunning(example: Manifest): Promise<void> {
    const environment = this.environment;
    if (!environment) return;
    this.view.phase('Still running (--keep); press Ctrl-C to stop');
    for (const line of keepBanner({
      kubeconfig: environment.kubeconfigPath,
      ...(environment.context === undefined ? {} : { context: environment.context }),
      namespace: example.metadata.namespace ?? 'default',
      name: example.metadata.name,
      manifestFile: this.updatedManifest ?? exampleFileOf(this.flags.examples),
      exampleFile: exampleFileOf(this.flags.examples),
      ...(this.rolledOut === undefined ? {} : { rolledOut: this.rolledOut }),
      ...(this.connectionAgent === undefined ? {} : { connectionAgent: this.connectionAgent }),
      controlPlaneUrl: environment.controlPlaneUrl,
      apiKeyHint: environment.embeddedControlPlane ? 'emulator-key' : '<yours>',
      adminToken: environment.adminToken,
      metricsUrl: this.operator?.metricsUrl,
      logPath: this.logPath,
    }))
      this.view.line(line);
    await this.stopped;
    this.keptUntilStopped = true;
    this.view.phase('Stopping (Ctrl-C)');
  }

  /** Stops everything; false when the clean-up of a real cluster failed. */
  async close(): Promise<boolean> {
    let cleanedUp = true;
    process.off('SIGINT', this.onStopSignal);
    process.off('SIGTERM', this.onStopSignal);
    const environment = this.environment;
    let leftInCluster: string | undefined;
    if (environment && !environment.embeddedKube && this.footprint?.ownsAnything()) {
      if (this.flags.keep && this.succeeded) {
        leftInCluster = this.footprint.describe();
        this.view.line(
          `left in place (--keep): ${leftInCluster}; the next \`agent-operator demo --kubeconfig …\` run empties it first`,
        );
      } else {
        this.view.phase('Cleaning up');
        try {
          await this.footprint.cleanUp(CLEAN_UP_GRACE_MS);
        } catch (error) {
          cleanedUp = false;
          this.view.line(`clean-up failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    await this.operator?.stop();
    this.closeKubeTransport();
    await environment?.close();
    // The state folder holds the operator's log: kept (and named) after a failure only.
    const keepLog = this.logPath !== undefined && !(this.succeeded && cleanedUp);
    if (environment && !keepLog) await rm(environment.stateDir, { recursive: true, force: true });
    else if (keepLog && this.succeeded) this.view.line(`operator log: ${this.logPath ?? ''}`);
    if (environment && this.keptUntilStopped) {
      for (const line of stoppedLines({
        embeddedKube: environment.embeddedKube,
        embeddedControlPlane: environment.embeddedControlPlane,
        controlPlaneUrl: environment.controlPlaneUrl,
        kubeconfig: environment.kubeconfigPath,
        ...(environment.context === undefined ? {} : { context: environment.context }),
        ...(leftInCluster === undefined ? {} : { leftInCluster }),
        ...(keepLog ? {} : { removedStateDir: environment.stateDir }),
      }))
        this.view.line(line);
    }
    return cleanedUp;
  }
}

/** The manifest the --keep banner suggests editing: the container example, else the whole folder. */
function exampleFileOf(examples: string): string {
  const file = join(examples, '30-external-container-agent.yaml');
  return existsSync(file) ? file : examples;
}

/** The one change the demo rolls out: a new image tag, or for a repo_host agent a new ref. */
function updateFor(object: Manifest): { manifest: Manifest; description: string; from: string; to: string } {
  const spec = (object.spec ?? {}) as { sourceRevisionConfig?: { imageUri?: string; repoRef?: string } };
  const revision = spec.sourceRevisionConfig ?? {};
  const image = revision.imageUri;
  const change: { imageUri: string } | { repoRef: string } = image
    ? { imageUri: image.replace(/:[^:/]+$/, '') + ':demo-update' }
    : { repoRef: 'demo-update' };
  const [field, next] = Object.entries(change)[0] ?? ['', ''];
  const manifest = { ...object, spec: { ...spec, sourceRevisionConfig: { ...revision, ...change } } };
  return {
    manifest,
    description: `${field === 'imageUri' ? 'image' : field} ${next}`,
    from: `${field} ${image ?? revision.repoRef ?? '(none)'}`,
    to: `${field} ${next}`,
  };
}

/** The updated manifest as a file to edit and apply, saying where it came from. */
function manifestFile(manifest: Manifest, description: string): string {
  return [
    `# ${manifest.metadata.name} as the demo applied it (examples/ with its update: ${description}).`,
    '# Edit it and `kubectl apply -f` it to roll out a change; applied unedited, nothing changes.',
    yaml.dump(manifest, { noRefs: true, lineWidth: -1 }),
  ].join('\n');
}
