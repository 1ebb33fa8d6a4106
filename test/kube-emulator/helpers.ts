// Shared helpers of the emulator tests: start an emulator with a kubeconfig in a temp dir,
// run the real kubectl against it, and speak raw HTTP to it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeEmulator, type KubeEmulator, type KubeEmulatorOptions } from '../../src/sim/kube/index.js';

export const FIXTURES = join(import.meta.dirname, 'fixtures');
export const KUBECTL = process.env['KUBECTL'] ?? '/usr/bin/kubectl';

export interface TestEmulator {
  emulator: KubeEmulator;
  dir: string;
  kubeconfig: string;
  stop(): Promise<void>;
}

export async function startTestEmulator(options: KubeEmulatorOptions = {}): Promise<TestEmulator> {
  const dir = await mkdtemp(join(tmpdir(), 'kube-emulator-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const emulator = await startKubeEmulator({ ...options, kubeconfigPath: kubeconfig });
  return {
    emulator,
    dir,
    kubeconfig,
    stop: async () => {
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl against the emulator with its own discovery cache. */
export function kubectl(env: TestEmulator, args: string[], stdin?: string): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, ['--kubeconfig', env.kubeconfig, '--cache-dir', join(env.dir, 'cache'), ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

export interface WatchingKubectl {
  /** Resolves once the server has answered kubectl's watch request (200, stream open). */
  watching: Promise<void>;
  result: Promise<CommandResult>;
}

/** kubectl's own log line (-v=6) for a watch request the server has answered. */
const WATCH_OPENED = /\bGET \S+[?&]watch=true\S* 200 OK\b/;

/**
 * Runs a kubectl command that watches (get -w, wait), and says when its watch is open, so
 * that a test changes the object only then: a change made earlier would be seen by kubectl's
 * first read, and the test would pass without a watch event ever reaching kubectl.
 */
export function kubectlWatching(env: TestEmulator, args: string[]): WatchingKubectl {
  let opened: () => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const watching = new Promise<void>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  const result = new Promise<CommandResult>((resolve, reject) => {
    const child = spawn(
      KUBECTL,
      ['--kubeconfig', env.kubeconfig, '--cache-dir', join(env.dir, 'cache'), '-v=6', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (WATCH_OPENED.test(stderr)) opened();
    });
    child.on('error', (error) => {
      failed(error);
      reject(error);
    });
    child.on('close', (code) => {
      failed(new Error(`kubectl ${args.join(' ')} ended before its watch opened: ${stderr}`));
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
  return { watching, result };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export async function http(
  env: TestEmulator,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const response = await fetch(`${env.emulator.url}${path}`, {
    method,
    headers: { 'Content-Type': contentType, Accept: 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export interface WatchEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; code?: number; reason?: string } & Record<string, unknown>;
}

/** Opens a raw watch and collects its events until `until` says stop or the stream ends. */
export async function collectWatch(
  env: TestEmulator,
  path: string,
  until: (events: WatchEvent[]) => boolean,
  onOpen?: () => Promise<void>,
): Promise<{ events: WatchEvent[]; ended: boolean }> {
  const controller = new AbortController();
  const response = await fetch(`${env.emulator.url}${path}`, { signal: controller.signal });
  const reader = response.body?.getReader();
  if (!reader) throw new Error('watch has no body');
  const events: WatchEvent[] = [];
  let buffer = '';
  const opened = onOpen ? onOpen() : Promise.resolve();
  let ended = false;
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buffer += Buffer.from(value).toString('utf8');
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        events.push(JSON.parse(buffer.slice(0, newline)) as WatchEvent);
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
      }
    }
  } catch (error) {
    if (!(error instanceof Error && /terminated|aborted|other side closed/i.test(`${error.message} ${String(error.cause)}`))) throw error;
    ended = true;
  } finally {
    await opened;
    controller.abort();
  }
  return { events, ended };
}

export const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

export async function installWidgetCrd(env: TestEmulator): Promise<void> {
  const result = await kubectl(env, ['apply', '-f', join(FIXTURES, 'widget-crd.yaml')]);
  if (result.code !== 0) throw new Error(`installing the widget CRD failed: ${result.stderr}`);
}

export function widget(name: string, size = 1, labels: Record<string, string> = {}): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, labels }, spec: { size } };
}
