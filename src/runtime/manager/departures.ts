// Abandons a key's running pass when its object leaves the cache. With a sharded operator an
// object relabelled to another shard leaves this shard's label-filtered watch as a DELETED
// event while it lives on: the other shard now owns it, so a pass still running here must
// stop before its next write (its signal reaches every call it makes; the pass runner checks it
// between steps). A real deletion ends the same way: there is nothing left to write to.
import { onAbort } from '../../signals/abort-fanout.js';
import { objectKey, type KubeObject } from '../kube/objects.js';
import type { ResourceEventHandler } from '../reflector/handlers.js';
import type { Reconcile } from '../controller/controller.js';

/** What this needs of an informer: to hear its deletions. */
export interface DeletionSource<T extends KubeObject> {
  addHandler(handler: ResourceEventHandler<T>): () => void;
}

/** A pass in progress: its key, its own controller, and the controller signal it runs under. */
interface RunningPass {
  readonly key: string;
  readonly controller: AbortController;
  readonly under: AbortSignal;
}

export class Departures<T extends KubeObject> {
  /**
   * The passes running now: at most a controller's workers, so a scan finds a key's passes (on
   * a departure, rare) and a pass's entry (at its end). A map by key, and a set per controller
   * signal, were allocated anew as they grew and shrank around every pass: 8% of what
   * each no-op reconcile left for the garbage collector (docs/benchmarks.md).
   */
  private readonly running: RunningPass[] = [];
  /**
   * The controller signals followed. Each is followed once for its whole life (a controller's
   * lives until the controller stops): a follower per pass added and removed a listener on the
   * signal at every pass, a cost of every no-op reconcile.
   */
  private readonly followed = new WeakSet<AbortSignal>();

  constructor(source: DeletionSource<T>) {
    source.addHandler({ onDelete: (object) => this.depart(objectKey(object)) });
  }

  /** Runs `pass` with a signal that aborts with `signal` or when the key's object leaves the cache. */
  async run<R>(key: string, signal: AbortSignal, pass: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const controller = new AbortController();
    if (signal.aborted) {
      controller.abort(signal.reason);
      return pass(controller.signal);
    }
    this.follow(signal);
    const entry: RunningPass = { key, controller, under: signal };
    this.running.push(entry);
    try {
      return await pass(controller.signal);
    } finally {
      this.remove(entry);
    }
  }

  /** `reconcile`, each pass of it abandoned when its key's object leaves the cache. */
  around(reconcile: Reconcile): Reconcile {
    return (key, signal) => this.run(key, signal, (passSignal) => reconcile(key, passSignal));
  }

  /** Keys with a pass running now (for tests and diagnostics). */
  get runningKeys(): number {
    return new Set(this.running.map((entry) => entry.key)).size;
  }

  private follow(signal: AbortSignal): void {
    if (this.followed.has(signal)) return;
    this.followed.add(signal);
    // Never unfollowed: the follower goes with the signal (abort-fanout.ts keeps one listener
    // for all of a signal's followers, and drops it when the signal aborts).
    onAbort(signal, (reason) => {
      for (const entry of this.running.filter((running) => running.under === signal))
        entry.controller.abort(reason);
    });
  }

  private remove(entry: RunningPass): void {
    const index = this.running.indexOf(entry);
    if (index < 0) return;
    // Order does not matter: the last entry takes the ended one's place.
    const last = this.running.pop() as RunningPass;
    if (index < this.running.length) this.running[index] = last;
  }

  private depart(key: string): void {
    const leaving = this.running.filter((entry) => entry.key === key);
    if (leaving.length === 0) return;
    const reason = new Error(`${key} left this operator's cache (deleted, or moved to another shard)`);
    for (const entry of leaving) entry.controller.abort(reason);
  }
}
