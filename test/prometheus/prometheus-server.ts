// A real Prometheus server for a test: loopback, a free port, its TSDB in a temp dir that
// goes away with it, and the HTTP API calls the tests make.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';

export interface ScrapeTarget {
  /** host:port */
  address: string;
  /** Target labels, as a ServiceMonitor would attach them (namespace, service, pod). */
  labels: Record<string, string>;
}

export interface PrometheusOptions {
  target: ScrapeTarget;
  /** A rule file's text, loaded as rules.yaml. */
  rules?: string;
  scrapeIntervalSeconds: number;
}

export interface Series {
  metric: Record<string, string>;
  values: Array<[number, string]>;
}

export class PrometheusServer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly url: string,
    private readonly log: () => string,
  ) {}

  static async start(options: PrometheusOptions): Promise<PrometheusServer> {
    const dir = await mkdtemp(join(tmpdir(), 'prometheus-test-'));
    const interval = `${options.scrapeIntervalSeconds}s`;
    const config = {
      global: { scrape_interval: interval, evaluation_interval: interval, scrape_timeout: interval },
      ...(options.rules === undefined ? {} : { rule_files: [join(dir, 'rules.yaml')] }),
      scrape_configs: [
        {
          job_name: 'agent-operator',
          static_configs: [{ targets: [options.target.address], labels: options.target.labels }],
        },
      ],
    };
    if (options.rules !== undefined) await writeFile(join(dir, 'rules.yaml'), options.rules);
    await writeFile(join(dir, 'prometheus.yml'), yaml.dump(config));
    const child = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        '--web.listen-address=127.0.0.1:0',
        '--log.level=info',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`prometheus did not start:\n${log}`)), 30_000);
        const look = (): void => {
          const match = /msg="Listening on" address=(127\.0\.0\.1:\d+)/.exec(log);
          if (match?.[1]) {
            clearTimeout(timer);
            child.stderr?.off('data', look);
            resolve(`http://${match[1]}`);
          }
        };
        child.stderr?.on('data', look);
        child.once('exit', (code) => reject(new Error(`prometheus exited (${code}):\n${log}`)));
      });
      const server = new PrometheusServer(child, dir, url, () => log);
      await server.waitUntil(async () => (await fetch(`${url}/-/ready`)).ok, 'prometheus ready', 30_000);
      return server;
    } catch (error) {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  async instant(query: string): Promise<Series[]> {
    return this.api('/api/v1/query', { query });
  }

  async range(
    query: string,
    startSeconds: number,
    endSeconds: number,
    stepSeconds: number,
  ): Promise<Series[]> {
    return this.api('/api/v1/query_range', {
      query,
      start: String(startSeconds),
      end: String(endSeconds),
      step: String(stepSeconds),
    });
  }

  async labelValues(label: string, selector: string): Promise<string[]> {
    const search = new URLSearchParams({ 'match[]': selector });
    const response = await fetch(`${this.url}/api/v1/label/${label}/values?${search.toString()}`);
    const body = (await response.json()) as { status: string; data: string[]; error?: string };
    if (body.status !== 'success') throw new Error(`label values ${label}: ${body.error ?? response.status}`);
    return body.data;
  }

  async waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        if (await check()) return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${this.log().slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
  }

  private async api(path: string, params: Record<string, string>): Promise<Series[]> {
    const response = await fetch(`${this.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data?: {
        resultType: string;
        result: Array<{
          metric: Record<string, string>;
          value?: [number, string];
          values?: Array<[number, string]>;
        }>;
      };
    };
    if (body.status !== 'success' || !body.data)
      throw new Error(`${params.query}: ${body.error ?? response.status}`);
    return body.data.result.map((entry) => ({
      metric: entry.metric,
      values: entry.values ?? (entry.value ? [entry.value] : []),
    }));
  }
}
