// Records when each AgentDeployment first becomes Ready (Ready=True at its current
// generation), from a watch on the benchmark namespace: a list for the starting point, then
// watch events, resumed from the last resourceVersion when the stream ends. Times are when
// the event reached this process, in ms since `origin`.
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { AGENT_DEPLOYMENTS, isReady, type AgentDeploymentObject } from './agent-deployments.js';
import { BENCH_NAMESPACE } from './emulators.js';

/** A wait for `count` Ready objects named `prefix`…, with the number seen so far. */
interface ReadyWaiter {
  readonly count: number;
  readonly prefix: string;
  ready: number;
  settle(error: Error | undefined): void;
}

export class ReadyTracker {
  /** name -> ms after origin at which it was first seen Ready. */
  readonly readyAt = new Map<string, number>();
  /** name -> ms after origin at which its status first named its tracing project. */
  readonly tracingProjectAt = new Map<string, number>();
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private waiters: ReadyWaiter[] = [];
  origin = performance.now();
  /** Told of every object the watch delivers, with its time (ms after `origin`). */
  onObject: ((object: AgentDeploymentObject, atMs: number) => void) | undefined;

  constructor(private readonly kube: KubeClient) {}

  /** Lists, then watches in the background; resolves once the watch is open. */
  async start(): Promise<void> {
    const list = await this.kube.listAll<AgentDeploymentObject>(AGENT_DEPLOYMENTS, {
      namespace: BENCH_NAMESPACE,
    });
    for (const object of list.items) this.observe(object);
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    this.running = this.watchLoop(list.resourceVersion, opened);
    await open;
  }

  /**
   * Resolves when at least `count` objects whose names start with `prefix` (default: all) have
   * been seen Ready; rejects after `timeoutMs`, or when the tracker stops first.
   */
  waitForReady(count: number, timeoutMs: number, prefix = ''): Promise<void> {
    const ready = [...this.readyAt.keys()].filter((name) => name.startsWith(prefix)).length;
    if (ready >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: ReadyWaiter = {
        count,
        prefix,
        ready,
        settle: (error) => {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((other) => other !== waiter);
          if (error === undefined) resolve();
          else reject(error);
        },
      };
      const timer = setTimeout(
        () => waiter.settle(new Error(`only ${waiter.ready} of ${count} Ready after ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      this.waiters.push(waiter);
    });
  }

  /** Ready times in ascending order (ms after origin). */
  sortedReadyTimes(): number[] {
    return [...this.readyAt.values()].sort((a, b) => a - b);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    // A run that ends early (a failed create) leaves no wait, nor its timer, behind.
    for (const waiter of [...this.waiters]) waiter.settle(new Error('the Ready tracker stopped'));
    await this.running?.catch(() => undefined);
  }

  private observe(object: AgentDeploymentObject): void {
    this.onObject?.(object, performance.now() - this.origin);
    const name = object.metadata.name ?? '';
    const project = (object.status as { tracingProject?: { id?: string } } | undefined)?.tracingProject;
    if (project?.id !== undefined && !this.tracingProjectAt.has(name)) {
      this.tracingProjectAt.set(name, performance.now() - this.origin);
    }
    if (this.readyAt.has(name) || !isReady(object)) return;
    this.readyAt.set(name, performance.now() - this.origin);
    for (const waiter of [...this.waiters]) {
      if (!name.startsWith(waiter.prefix)) continue;
      waiter.ready += 1;
      if (waiter.ready >= waiter.count) waiter.settle(undefined);
    }
  }

  private async watchLoop(resourceVersion: string, opened: () => void): Promise<void> {
    let version = resourceVersion;
    while (!this.abort.signal.aborted) {
      try {
        const events = await this.kube.watch<AgentDeploymentObject>(AGENT_DEPLOYMENTS, {
          namespace: BENCH_NAMESPACE,
          resourceVersion: version,
          allowWatchBookmarks: true,
          signal: this.abort.signal,
        });
        opened();
        for await (const event of events) {
          if (event.type === 'ERROR') throw new Error(`watch error: ${event.status.message ?? ''}`);
          version = event.object.metadata.resourceVersion ?? version;
          if (event.type === 'ADDED' || event.type === 'MODIFIED') this.observe(event.object);
        }
      } catch {
        if (this.abort.signal.aborted) return;
        // An expired version: start again from a fresh list.
        const list = await this.kube.listAll<AgentDeploymentObject>(AGENT_DEPLOYMENTS, {
          namespace: BENCH_NAMESPACE,
        });
        for (const object of list.items) this.observe(object);
        version = list.resourceVersion;
      }
    }
  }
}
