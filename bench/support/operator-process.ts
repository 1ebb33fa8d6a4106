// The operator in its own process (bench/support/operator-entry.ts: the `run` command plus
// a GC/RSS probe), with the published rate limit unless told otherwise, metrics served on
// a free local port, and helpers to read its metrics and its CPU time.
import { join } from 'node:path';
import { BENCH_API_KEY } from './emulators.js';
import { cpuSecondsOf, ROOT, spawnTsNode, type NodeProcess } from './processes.js';
import type { ProbeAnswer } from './operator-entry.js';

export interface OperatorProcessOptions {
  controlPlaneUrl: string;
  kubeconfigPath: string;
  /** Extra `run` flags, e.g. ['--resync-period', '1m']. */
  flags?: string[];
  /** Echo the operator's log lines to stderr. */
  verbose?: boolean;
}

export class OperatorProcess {
  private constructor(
    readonly process: NodeProcess,
    readonly metricsUrl: string,
  ) {}

  static async start(options: OperatorProcessOptions): Promise<OperatorProcess> {
    const child = spawnTsNode(
      join(ROOT, 'bench/support/operator-entry.ts'),
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
        nodeFlags: ['--expose-gc'],
        env: { AGENT_OPERATOR_API_KEY: BENCH_API_KEY },
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

  /** Sum of a metric's samples whose labels include all of `labels`. */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    const text = await (await fetch(`${this.metricsUrl}/metrics`)).text();
    return sumSamples(text, name, labels);
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
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
