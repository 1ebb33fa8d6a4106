// The operator as a child process, started the way a user runs it from a checkout
// (`node --import tsx src/cli.ts run ...`), so that the suite can SIGKILL it at any moment and
// start a new one. It records every exit: an exit the suite did not cause is a crash. The
// child's stderr (its pino log) goes to a file, scanned line by line for crash signatures
// as it arrives, and its resident memory is sampled from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What Node prints when a rejection or exception nobody handled ends the process. */
const CRASH_SIGNATURE = /Unhandled|uncaughtException|triggerUncaughtException|FATAL ERROR/i;

export interface OperatorLaunch {
  kubeconfigPath: string;
  controlPlaneUrl: string;
  apiKey: string;
  rateLimit: { count: number; windowSeconds: number };
  logPath: string;
  /** More flags for `run` (a replica of two: `--leader-elect --leader-election-namespace default`). */
  extraArgs?: readonly string[];
}

export interface UnexpectedExit {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string[];
}

export interface RssSample {
  atMs: number;
  pid: number;
  /** Milliseconds since this process started. */
  uptimeMs: number;
  rssBytes: number;
  /** Open file descriptors (entries of /proc/<pid>/fd), when they could be counted. */
  fds?: number;
}

interface Running {
  child: ChildProcess;
  startedAt: number;
  killedOnPurpose: boolean;
  /** Stopped with SIGSTOP and not yet continued. */
  paused: boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export class OperatorProcess {
  readonly unexpectedExits: UnexpectedExit[] = [];
  readonly crashLines: string[] = [];
  readonly rssSamples: RssSample[] = [];
  starts = 0;
  kills = 0;
  /** How the final SIGTERM ended the last process: it should drain and exit 0. */
  shutdown: { code: number | null; signal: NodeJS.Signals | null; forced: boolean } | undefined;
  private current: Running | undefined;
  private readonly log: WriteStream;
  private readonly tail: string[] = [];
  private warnOrWorse = 0;

  constructor(private readonly launch: OperatorLaunch) {
    this.log = createWriteStream(launch.logPath, { flags: 'a' });
  }

  get pid(): number | undefined {
    return this.current?.child.pid;
  }

  /** When the running process started (epoch ms), if one runs. */
  get startedAt(): number | undefined {
    return this.current?.startedAt;
  }

  /**
   * The leader-election identity the running process uses: the operator's default,
   * `<hostname>_<pid>` (the same machine, so the same hostname).
   */
  get identity(): string | undefined {
    const pid = this.pid;
    return pid === undefined ? undefined : `${hostname()}_${pid}`;
  }

  /** SIGSTOP: the process freezes as in a long GC pause or a partition; timers and sockets wait. */
  pause(): void {
    const running = this.current;
    if (!running || running.paused) return;
    running.paused = true;
    running.child.kill('SIGSTOP');
  }

  /** SIGCONT after `pause`: everything it had in flight resumes at once. */
  resume(): void {
    const running = this.current;
    if (!running || !running.paused) return;
    running.paused = false;
    running.child.kill('SIGCONT');
  }

  /** Log lines at warn level or above, over every process (for the summary). */
  get warnings(): number {
    return this.warnOrWorse;
  }

  start(): void {
    if (this.current) throw new Error('OperatorProcess.start: an operator process is already running');
    const { kubeconfigPath, controlPlaneUrl, apiKey, rateLimit } = this.launch;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli.ts',
        'run',
        '--kubeconfig',
        kubeconfigPath,
        '--control-plane-url',
        controlPlaneUrl,
        // The same limit the emulator enforces: the operator must never exceed it.
        '--rate-limit',
        `${rateLimit.count}/${rateLimit.windowSeconds}`,
        '--concurrency',
        '4',
        '--resync-period',
        '10s',
        '--poll-interval',
        '500ms',
        '--metrics-bind-address',
        '127.0.0.1:0',
        '--log-level',
        'info',
        ...(this.launch.extraArgs ?? []),
      ],
      {
        cwd: REPO_ROOT,
        // The key through the environment, as the docs tell users (a flag would show in ps).
        env: { ...process.env, AGENT_OPERATOR_API_KEY: apiKey, NODE_OPTIONS: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.starts += 1;
    const running: Running = {
      child,
      startedAt: Date.now(),
      killedOnPurpose: false,
      paused: false,
      exited: new Promise((resolve) => {
        // 'close', not 'exit': the last lines of its stderr have been read by then.
        child.once('close', (code, signal) => {
          if (!running.killedOnPurpose) {
            this.unexpectedExits.push({
              pid: child.pid ?? -1,
              code,
              signal,
              stderrTail: [...this.tail],
            });
          }
          if (this.current === running) this.current = undefined;
          resolve({ code, signal });
        });
      }),
    };
    this.current = running;
    this.follow(child);
  }

  /** SIGKILL: no drain, no lease release, whatever was in flight is cut. */
  async kill(): Promise<void> {
    const running = this.current;
    if (!running) return;
    running.killedOnPurpose = true;
    this.kills += 1;
    running.child.kill('SIGKILL');
    await running.exited;
  }

  /** The clean shutdown at the end of the run (SIGTERM; SIGKILL if it hangs). */
  async stop(): Promise<void> {
    const running = this.current;
    if (running) {
      running.killedOnPurpose = true;
      // A stopped process would keep SIGTERM pending for ever.
      this.resume();
      running.child.kill('SIGTERM');
      let forced = false;
      const timer = setTimeout(() => {
        forced = true;
        running.child.kill('SIGKILL');
      }, 10_000);
      const exit = await running.exited;
      clearTimeout(timer);
      this.shutdown ??= { ...exit, forced };
    }
    if (!this.log.writableEnded) await new Promise<void>((resolve) => this.log.end(resolve));
  }

  async sampleRss(): Promise<void> {
    const running = this.current;
    const pid = running?.child.pid;
    if (!running || pid === undefined) return;
    let status: string;
    try {
      status = await readFile(`/proc/${pid}/status`, 'utf8');
    } catch {
      return; // it just exited (killed): nothing to sample
    }
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    if (!match) return;
    const fds = await readdir(`/proc/${pid}/fd`).then(
      (entries) => entries.length,
      () => undefined,
    );
    const now = Date.now();
    this.rssSamples.push({
      atMs: now,
      pid,
      uptimeMs: now - running.startedAt,
      rssBytes: Number(match[1]) * 1024,
      ...(fds === undefined ? {} : { fds }),
    });
  }

  private follow(child: ChildProcess): void {
    let partial = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      this.log.write(chunk);
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.inspect(line);
    });
    // The operator writes nothing to stdout; keep whatever appears, it may explain a crash.
    child.stdout?.on('data', (chunk: Buffer) => {
      this.log.write(chunk);
    });
  }

  private inspect(line: string): void {
    this.tail.push(line);
    if (this.tail.length > 40) this.tail.shift();
    if (CRASH_SIGNATURE.test(line)) this.crashLines.push(line);
    const level = /"level":(\d+)/.exec(line)?.[1];
    if (level !== undefined && Number(level) >= 40) this.warnOrWorse += 1;
  }
}
