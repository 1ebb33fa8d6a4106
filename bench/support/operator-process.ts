// The operator in its own process (bench/support/operator-entry.ts: the `run` command plus
// a GC/RSS probe), with the published rate limit unless told otherwise, metrics served on
// a free local port, and helpers to read its metrics and its CPU time.
import { execFile } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BENCH_API_KEY } from './emulators.js';
import { imageEnvironment, imageNodeFlags } from './image-node-flags.js';
import { cpuSecondsOf, ROOT, spawnTsNode, type NodeProcess } from './processes.js';
import type { ProbeAnswer } from './operator-entry.js';

export interface OperatorProcessOptions {
  controlPlaneUrl: string;
  kubeconfigPath: string;
  /** Extra `run` flags, e.g. ['--resync-period', '1m']. */
  flags?: string[];
  /** Echo the operator's log lines to stderr. */
  verbose?: boolean;
  /** Run the TypeScript sources through tsx instead of the compiled build (what ships). */
  fromSource?: boolean;
}

const BUILD_CONFIG = join(ROOT, 'bench/support/tsconfig.operator-build.json');
const BUILT_ROOT = join(ROOT, 'node_modules/.cache/agent-operator-bench');
const BUILT_ENTRY = join(BUILT_ROOT, 'bench/support/operator-entry.js');
let building: Promise<void> | undefined;

/**
 * Compiles the operator (and its probe entry) with tsc, once per benchmark process, into
 * node_modules/.cache/agent-operator-bench: Node finds the packages from there and no linter
 * or formatter looks there. The image runs compiled JavaScript (`node dist/cli.js run`); the
 * tsx loader would add its own memory and start-up cost to the figures.
 */
export function buildOperator(): Promise<void> {
  building ??= promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', BUILD_CONFIG],
    { cwd: ROOT },
  )
    // The compiled operator reads its version from the package root beside it (build_info).
    .then(() => copyFile(join(ROOT, 'package.json'), join(BUILT_ROOT, 'package.json')));
  return building;
}

export class OperatorProcess {
  private constructor(
    readonly process: NodeProcess,
    readonly metricsUrl: string,
  ) {}

  static async start(options: OperatorProcessOptions): Promise<OperatorProcess> {
    if (!options.fromSource) await buildOperator();
    const child = spawnTsNode(
      options.fromSource ? join(ROOT, 'bench/support/operator-entry.ts') : BUILT_ENTRY,
      [
        '--kubeconfig',
        options.kubeconfigPath,
        '--control-plane-url',
        options.controlPlaneUrl,
        '--metrics-bind-address',
        '127.0.0.1:0',
        '--log-level',
        'info',
        ...(options.flags ?? []),
      ],
      {
        nodeFlags: imageNodeFlags(),
        plainNode: !options.fromSource,
        env: { ...imageEnvironment(), AGENT_OPERATOR_API_KEY: BENCH_API_KEY },
        ipc: true,
        linesFromStderr: true,
        ...(options.verbose ? { onLine: (line: string) => process.stderr.write(`${line}\n`) } : {}),
      },
    );
    const metricsUrl = await child.waitForLine((line) => {
      if (!line.includes('operator started')) return undefined;
      const parsed = JSON.parse(line) as { metrics?: string };
      return parsed.metrics;
    }, 'the operator to start');
    return new OperatorProcess(child, metricsUrl);
  }

  get pid(): number {
    return this.process.pid;
  }

  cpuSeconds(): number {
    return cpuSecondsOf(this.pid);
  }

  /** Full GC in the operator, then its RSS and heap. */
  gcAndMeasure(): Promise<ProbeAnswer> {
    return new Promise((resolve, reject) => {
      const child = this.process.child;
      const timer = setTimeout(() => reject(new Error('the operator did not answer the GC probe')), 30_000);
      child.once('message', (answer: ProbeAnswer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      child.send('gc');
    });
  }

  /** Starts a CPU profile in the operator (bench/support/profile-probe.ts). */
  startCpuProfile(): Promise<void> {
    return this.ask({ cpuProfile: 'start' }, 'started');
  }

  /** Stops the CPU profile and has the operator write it to `file`. */
  stopCpuProfile(file: string): Promise<void> {
    return this.ask({ cpuProfile: 'stop', file }, 'written');
  }

  /** Starts sampling the operator's allocations (bench/support/profile-probe.ts). */
  startAllocationProfile(): Promise<void> {
    return this.ask({ allocationProfile: 'start' }, 'started');
  }

  /** Stops the allocation sampling and has the operator write the profile to `file`. */
  stopAllocationProfile(file: string): Promise<void> {
    return this.ask({ allocationProfile: 'stop', file }, 'written');
  }

  /** Has the operator write a V8 heap snapshot to `file`. */
  writeHeapSnapshot(file: string): Promise<void> {
    return this.ask({ heapSnapshot: file }, 'written');
  }

  private ask(message: object, expected: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = this.process.child;
      const timer = setTimeout(
        () => reject(new Error('the operator did not answer the profile probe')),
        60_000,
      );
      const onMessage = (answer: unknown): void => {
        if (typeof answer !== 'object' || answer === null) return;
        if (!('cpuProfile' in answer) && !('cpuProfileError' in answer)) return;
        child.off('message', onMessage);
        clearTimeout(timer);
        const record = answer as Record<string, string>;
        if (record.cpuProfile === expected) resolve();
        else reject(new Error(`CPU profile: ${record.cpuProfileError ?? JSON.stringify(record)}`));
      };
      child.on('message', onMessage);
      child.send(message);
    });
  }

  /** Sum of a metric's samples whose labels include all of `labels`. */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    // Only this metric: a whole scrape builds every per-object series, which at several polls
    // a second would be a cost of the benchmark counted as the operator's.
    const text = await (await fetch(`${this.metricsUrl}/metrics?name[]=${encodeURIComponent(name)}`)).text();
    return sumSamples(text, name, labels);
  }

  /**
   * The operator's garbage collections so far (prom-client's nodejs_gc_duration_seconds): the
   * main thread's pause seconds of every kind, and how many were full (major) collections.
   */
  async gcTotals(): Promise<GcTotals> {
    const name = 'nodejs_gc_duration_seconds';
    const text = await (await fetch(`${this.metricsUrl}/metrics?name[]=${name}`)).text();
    return {
      pauseSeconds: sumSamples(text, `${name}_sum`, {}),
      majorCount: sumSamples(text, `${name}_count`, { kind: 'major' }),
    };
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
}

export interface GcTotals {
  pauseSeconds: number;
  majorCount: number;
}

export function sumSamples(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const labelText = match[3] ?? '';
    const ok = Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`));
    if (ok) total += Number(match[4]);
  }
  return total;
}
