// The operator as a real Prometheus (and Grafana, and the alert rules) sees it. The operator
// runs against both emulators, as `agent-operator run` does, with leader election on as the
// chart runs it. A real Prometheus scrapes it every second while the examples reconcile,
// one update rolls out, and a forced error, a 429 and their retries happen. Then every query
// of every dashboard panel and what every alert watches must return data, asked through
// Prometheus's own HTTP API; promtool lints both /metrics endpoints (run and demo) and
// checks and unit-tests the chart's alert rules.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoEnvironment, type DemoEnvironment } from '../../src/demo/environment.js';
import { applyObject, readManifests, type Manifest } from '../../src/demo/manifests.js';
import { createLogger } from '../../src/observability/logger.js';
import { AGENT_DEPLOYMENTS, startOperator, type RunningOperator } from '../../src/operator/operator.js';
import { kubeClientFrom } from '../../src/runtime/kube/cluster-access.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { EXAMPLES_DIR, REPO_ROOT } from '../packaging/support/paths.js';
import {
  alertOperand,
  dashboardQueries,
  dashboardVariables,
  METRICS_SERVICE,
  RELEASE_NAMESPACE,
  renderedAlertRules,
  type RenderedRules,
} from './chart-queries.js';
import { PrometheusServer, type Series } from './prometheus-server.js';
import { checkAndTestRules, checkMetrics, repeatedFamilies } from './promtool.js';
import { prometheusMissing } from './tools.js';

const SCRAPE_SECONDS = 1;
/** Grafana's $__rate_interval never goes below four scrape intervals: the strictest window a panel uses. */
const RATE_INTERVAL = `${4 * SCRAPE_SECONDS}s`;
const POD = 'agent-operator-0';
const UNIT_TESTS = join(import.meta.dirname, 'alerts.promtool-test.yaml');

const missing = prometheusMissing();
if (missing) console.warn(`SKIPPED the real-Prometheus tests: ${missing}`);

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function hasData(series: Series[]): boolean {
  return series.some((entry) => entry.values.some(([, value]) => !Number.isNaN(Number(value))));
}

async function sampleSum(operator: RunningOperator, name: string): Promise<number> {
  const metric = operator.registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.reduce((sum, entry) => sum + entry.value, 0);
}

describe.skipIf(missing !== undefined)('a real Prometheus scraping the operator', () => {
  let environment: DemoEnvironment;
  let operator: RunningOperator;
  let prometheus: PrometheusServer;
  let client: KubeClient;
  let rules: RenderedRules;
  let startedSeconds: number;

  beforeAll(async () => {
    rules = await renderedAlertRules();
    environment = await startDemoEnvironment({
      revisionPhaseMs: 150,
      logger: createLogger({ level: 'silent' }),
    });
    client = kubeClientFrom(environment.kubeConfig).client;
    for (const crd of await readManifests(join(REPO_ROOT, 'crds'))) await applyObject(client, crd);
    await applyObject(client, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: RELEASE_NAMESPACE },
    } as Manifest);
    operator = await startOperator({
      config: {
        region: 'us',
        controlPlaneUrl: environment.controlPlaneUrl,
        apiKey: environment.apiKey,
        namespaces: [],
        concurrency: 4,
        resyncPeriodMs: 60_000,
        pollIntervalMs: 200,
        leaderElect: true,
        leaderElectionNamespace: RELEASE_NAMESPACE,
        leaderElectionId: 'agent-operator',
        metricsBindAddress: { host: '127.0.0.1', port: 0 },
        logLevel: 'info',
      },
      logger: createLogger({ level: 'info', destination: new Writable({ write: (_c, _e, done) => done() }) }),
      kubeConfig: environment.kubeConfig,
      identity: POD,
      reconciler: { minRevisionPollMs: 200 },
    });
    startedSeconds = Date.now() / 1000;
    prometheus = await PrometheusServer.start({
      scrapeIntervalSeconds: SCRAPE_SECONDS,
      rules: rules.ruleFile,
      target: {
        address: new URL(operator.metricsUrl ?? '').host,
        labels: { namespace: RELEASE_NAMESPACE, service: METRICS_SERVICE, pod: POD },
      },
    });
    await prometheus.waitUntil(
      async () => (await prometheus.instant('up == 1')).length === 1,
      'the first successful scrape',
      30_000,
    );

    // A forced failure of each kind the dashboard shows: a 503 on a create (a failed
    // reconcile, requeued through the rate limiter), a 429 on a list (throttled) and a 503
    // on a list (retried by the client).
    const faults = [
      { method: 'POST', route: '/v2/deployments', status: 503, count: 1 },
      { method: 'GET', route: '/v2/deployments', status: 429, count: 1, retryAfterSeconds: 1 },
      { method: 'GET', route: '/v2/deployments', status: 503, count: 1 },
    ];
    for (const fault of faults) {
      const response = await fetch(`${environment.controlPlaneUrl}/_emulator/faults`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${environment.adminToken ?? ''}`,
        },
        body: JSON.stringify(fault),
      });
      if (response.status !== 201) throw new Error(`fault ${JSON.stringify(fault)}: ${response.status}`);
    }

    const examples = await readManifests(EXAMPLES_DIR);
    for (const object of examples) await applyObject(client, object);
    // A connection whose key Secret does not exist: its Ready series (at 0) is what
    // AgentOperatorConnectionNotReady watches. Never probed, so its URLs are never called.
    const namespace = examples.find((object) => object.kind === 'AgentDeployment')?.metadata.namespace ?? 'default';
    await applyObject(client, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'PlatformConnection',
      metadata: { name: 'without-key', namespace },
      spec: {
        controlPlaneUrl: 'https://control-plane.example.invalid',
        platformApiUrl: 'https://platform.example.invalid',
        apiKeySecretRef: { name: 'no-such-secret', key: 'apiKey' },
      },
    } as Manifest);
    const agents = examples.filter((object) => object.kind === 'AgentDeployment');
    const ready = async (): Promise<boolean> => {
      for (const agent of agents) {
        const object = await client.get<
          Manifest & { status?: { conditions?: Array<{ type: string; status: string }> } }
        >(AGENT_DEPLOYMENTS, agent.metadata.namespace, agent.metadata.name);
        if (!object.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return false;
      }
      return true;
    };
    await waitFor(ready, 'every example Ready');
    const target = agents.find(
      (object) => (object.spec as { source?: string }).source === 'external_container',
    );
    if (!target) throw new Error('the examples have no external_container agent');
    const image = (target.spec as { sourceRevisionConfig: { imageUri: string } }).sourceRevisionConfig
      .imageUri;
    await client.mergePatch(AGENT_DEPLOYMENTS, target.metadata.namespace, target.metadata.name, {
      spec: { sourceRevisionConfig: { imageUri: image.replace(/:[^:/]+$/, ':prometheus-test') } },
    });
    const rolledOut = agents.length + 1;
    await waitFor(
      async () =>
        (await sampleSum(operator, 'agent_operator_revisions_total')) >= rolledOut && (await ready()),
      'the update rolled out',
    );
    for (const name of [
      'controller_runtime_reconcile_errors_total',
      'workqueue_retries_total',
      'agent_operator_controlplane_throttled_total',
      'agent_operator_controlplane_retries_total',
    ])
      expect(await sampleSum(operator, name), `${name} after the forced failures`).toBeGreaterThan(0);
    // Prometheus has seen it all once it has scraped the last rollout.
    await prometheus.waitUntil(
      async () =>
        hasData(await prometheus.instant(`agent_operator_revisions_total{state="DEPLOYED"} >= ${rolledOut}`)),
      'Prometheus to scrape the rollout',
      30_000,
    );
    await prometheus.waitUntil(
      async () => hasData(await prometheus.instant('agent_operator_connection_ready{name="without-key"} == 0')),
      'Prometheus to scrape the connection without a key',
      30_000,
    );
    // One more rate window, so that a rate() ending now covers a scrape after the last event.
    const seen = Date.now();
    await prometheus.waitUntil(
      async () => Date.now() - seen > 4_000 * SCRAPE_SECONDS,
      'one more rate window',
      10_000,
    );
  }, 180_000);

  afterAll(async () => {
    await prometheus?.stop();
    await operator?.stop();
    await environment?.close();
    if (environment) await rm(environment.stateDir, { recursive: true, force: true });
  });

  it('every dashboard panel query returns data', async () => {
    const values = new Map<string, string>();
    for (const variable of await dashboardVariables()) {
      let selector = variable.selector;
      for (const [name, value] of values) selector = selector.replaceAll(`$${name}`, value);
      const found = await prometheus.labelValues(variable.label, selector);
      expect(found, `dashboard variable $${variable.name}`).not.toEqual([]);
      values.set(variable.name, found.join('|'));
    }
    const queries = await dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    const empty: string[] = [];
    for (const { panel, expr } of queries) {
      let query = expr.replaceAll('$__rate_interval', RATE_INTERVAL);
      for (const [name, value] of values) query = query.replaceAll(`$${name}`, value);
      expect(query, `${panel}: a variable left unresolved`).not.toMatch(/\$\w/);
      const series = await prometheus.range(query, startedSeconds, Date.now() / 1000, SCRAPE_SECONDS);
      if (!hasData(series)) empty.push(`${panel}: ${query}`);
    }
    expect(empty, 'panels that would show "No data"').toEqual([]);
  });

  it('every alert watches series that exist', async () => {
    expect(rules.alerts.length).toBeGreaterThan(0);
    const blind: string[] = [];
    for (const { alert, expr } of rules.alerts) {
      const operand = alertOperand(expr);
      if (!hasData(await prometheus.instant(operand))) blind.push(`${alert}: ${operand}`);
    }
    expect(blind, 'alerts that can never fire').toEqual([]);
  });

  it('sees the build, every AgentDeployment Ready by name, and deletions by kind and phase', async () => {
    expect(await prometheus.instant('agent_operator_build_info{version="0.1.0"} == 1')).toHaveLength(1);
    const agents = (await readManifests(EXAMPLES_DIR)).filter((object) => object.kind === 'AgentDeployment');
    const readyByName = await prometheus.instant('agent_operator_agentdeployment_ready == 1');
    // Behind a scrape config the object's namespace arrives as exported_namespace.
    expect(readyByName.map((entry) => `${entry.metric['exported_namespace']}/${entry.metric['name']}`).sort()).toEqual(
      agents.map((object) => `${object.metadata.namespace}/${object.metadata.name}`).sort(),
    );
    expect(await prometheus.instant('agent_operator_data_deletions')).toHaveLength(12);
  });

  it('promtool accepts the run-mode /metrics, and checks and unit-tests the alert rules', async () => {
    const exposition = await (await fetch(`${operator.metricsUrl ?? ''}/metrics`)).text();
    const lint = await checkMetrics(exposition);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    const documented = await readFile(join(REPO_ROOT, 'docs', 'metrics.md'), 'utf8');
    const families = [...exposition.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1] ?? '');
    expect(families.length).toBeGreaterThan(30);
    expect(
      families.filter((name) => !documented.includes(`\`${name}\``)),
      'families missing from docs/metrics.md',
    ).toEqual([]);
    for (const result of await checkAndTestRules(rules.ruleFile, UNIT_TESTS))
      expect(result.code, result.stdout + result.stderr).toBe(0);
  });
});

describe.skipIf(missing !== undefined)('the demo’s /metrics under a scraper', () => {
  let demo: ChildProcess | undefined;

  let stateDir: string | undefined;

  afterAll(async () => {
    if (demo?.exitCode === null) demo.kill('SIGKILL');
    // The demo keeps its kubeconfig and log in a temp dir of its own.
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it('stays valid for promtool from start until well after the demo keeps running', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev-cli.ts', 'demo', '--keep', '--plain'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CI: 'true' },
    });
    demo = child;
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const started = Date.now();
    await waitFor(
      async () => /metrics at (http:\/\/\S+)\/metrics/.test(output),
      'the demo’s metrics URL',
      60_000,
    );
    const url = /metrics at (http:\/\/\S+)\/metrics/.exec(output)?.[1] ?? '';
    stateDir = /log in (\S+)\/operator\.log/.exec(output)?.[1];
    const bad = new Set<string>();
    let last = '';
    let scrapes = 0;
    // Past the end of the demo (about 5 s) and the 10 s mark where duplicates were seen.
    while (!(output.includes('Still running') && Date.now() - started > 12_000)) {
      if (child.exitCode !== null) throw new Error(`the demo exited early:\n${output}`);
      if (Date.now() - started > 90_000) throw new Error(`the demo did not reach --keep:\n${output}`);
      last = await (await fetch(`${url}/metrics`)).text();
      scrapes++;
      for (const family of repeatedFamilies(last)) bad.add(family);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...bad], `families exposed twice in ${scrapes} scrapes`).toEqual([]);
    const lint = await checkMetrics(last);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 120_000);
});
