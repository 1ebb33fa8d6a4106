// Child processes of the benchmarks: the emulators and the operator each run in their own
// Node process (TypeScript through tsx, or a compiled build), so that the operator competes with them for the
// two cores through the OS scheduler instead of sharing one event loop with them.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface NodeProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves with what `match` returns for the first line it accepts (stdout, or stderr). */
  waitForLine(match: (line: string) => string | undefined, what: string, timeoutMs?: number): Promise<string>;
  /** Sends SIGTERM (SIGKILL after 15 s) and waits for the exit. */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Extra node flags placed before the script (e.g. --expose-gc). */
  nodeFlags?: string[];
  env?: NodeJS.ProcessEnv;
  /** Opens an IPC channel (the operator probe answers GC and RSS requests on it). */
  ipc?: boolean;
  /** Receives every line read (e.g. to echo logs); lines are read even without one. */
  onLine?: (line: string) => void;
  /** Read lines from stderr (where pino logs go) instead of stdout; stdout is then ignored. */
  linesFromStderr?: boolean;
  /** Run plain JavaScript (a compiled build) instead of TypeScript through tsx. */
  plainNode?: boolean;
  /** Drop stderr (the emulators' start/stop log lines) instead of inheriting it. */
  quietStderr?: boolean;
}

/**
 * Starts `node --import tsx <script> <args>` (or plain `node` for a build) in the repository root. Lines are read from
 * stdout (stderr inherited), or from stderr (stdout ignored) with `linesFromStderr`.
 */
export function spawnTsNode(script: string, args: string[], options: SpawnOptions = {}): NodeProcess {
  const streams: StdioOptions = options.linesFromStderr
    ? ['ignore', 'ignore', 'pipe']
    : ['ignore', 'pipe', options.quietStderr ? 'ignore' : 'inherit'];
  const stdio: StdioOptions = options.ipc ? [...streams, 'ipc'] : streams;
  const loader = options.plainNode ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...loader, script, ...args], {
    cwd: ROOT,
    stdio,
    env: { ...process.env, NODE_ENV: 'production', ...options.env },
  });
  const input = options.linesFromStderr ? child.stderr : child.stdout;
  if (!input || child.pid === undefined) throw new Error(`could not start ${script}`);
  // Every line is consumed as it comes, so a chatty child never blocks on a full pipe.
  const waiters = new Set<(line: string) => void>();
  createInterface({ input }).on('line', (line) => {
    options.onLine?.(line);
    for (const waiter of [...waiters]) waiter(line);
  });
  const exited = once(child, 'exit');
  return {
    child,
    pid: child.pid,
    waitForLine: (match, what, timeoutMs = 60_000) =>
      new Promise<string>((resolve, reject) => {
        const finish = (error: Error | undefined, value?: string): void => {
          waiters.delete(onLine);
          clearTimeout(timer);
          child.off('exit', onExit);
          if (error) reject(error);
          else resolve(value ?? '');
        };
        const onLine = (line: string): void => {
          const found = match(line);
          if (found !== undefined) finish(undefined, found);
        };
        const onExit = (): void => finish(new Error(`${script} exited before ${what}`));
        const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), timeoutMs);
        waiters.add(onLine);
        child.once('exit', onExit);
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / CLOCK_TICKS_PER_SECOND;
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssBytesOf(pid: number): number {
  return statusBytes(pid, 'VmRSS');
}

/** The largest resident set size the process has had (Linux /proc): what a memory limit must allow. */
export function peakRssBytesOf(pid: number): number {
  return statusBytes(pid, 'VmHWM');
}

function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} for pid ${pid}`);
  return Number(kb) * 1024;
}
