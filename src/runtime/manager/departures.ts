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

export class Departures<T extends KubeObject> {
  /**
   * The passes running for each key: one, as a controller runs them (a bare controller costs
   * a fraction of a one-element Set, allocated at every pass), or several.
   */
  private readonly running = new Map<string, AbortController | Set<AbortController>>();
  /**
   * The passes running under each controller signal. The signal is followed once for its
   * whole life (a controller's lives until the controller stops): a follower per pass added
   * and removed a listener on the signal at every pass, a cost of every no-op reconcile.
   */
  private readonly underSignal = new WeakMap<AbortSignal, Set<AbortController>>();

  constructor(source: DeletionSource<T>) {
    source.addHandler({ onDelete: (object) => this.depart(objectKey(object)) });
  }

  /** Runs `pass` with a signal that aborts with `signal` or when the key's object leaves the cache. */
  async run<R>(key: string, signal: AbortSignal, pass: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const controller = new AbortController();
    if (signal.aborted) controller.abort(signal.reason);
    const siblings = signal.aborted ? undefined : this.passesUnder(signal);
    siblings?.add(controller);
    this.add(key, controller);
    try {
      return await pass(controller.signal);
    } finally {
      siblings?.delete(controller);
      this.remove(key, controller);
    }
  }

  /** `reconcile`, each pass of it abandoned when its key's object leaves the cache. */
  around(reconcile: Reconcile): Reconcile {
    return (key, signal) => this.run(key, signal, (passSignal) => reconcile(key, passSignal));
  }

  /** Passes running now (for tests and diagnostics). */
  get runningKeys(): number {
    return this.running.size;
  }

  private passesUnder(signal: AbortSignal): Set<AbortController> {
    const known = this.underSignal.get(signal);
    if (known !== undefined) return known;
    const passes = new Set<AbortController>();
    this.underSignal.set(signal, passes);
    // Never unfollowed: the follower goes with the signal (abort-fanout.ts keeps one listener
    // for all of a signal's followers, and drops it when the signal aborts).
    onAbort(signal, (reason) => {
      for (const controller of passes) controller.abort(reason);
      passes.clear();
    });
    return passes;
  }

  private add(key: string, controller: AbortController): void {
    const running = this.running.get(key);
    if (running === undefined) this.running.set(key, controller);
    else if (running instanceof Set) running.add(controller);
    else this.running.set(key, new Set([running, controller]));
  }

  private remove(key: string, controller: AbortController): void {
    const running = this.running.get(key);
    if (running === controller) this.running.delete(key);
    else if (running instanceof Set) {
      running.delete(controller);
      if (running.size === 0) this.running.delete(key);
    }
  }

  private depart(key: string): void {
    const running = this.running.get(key);
    if (running === undefined) return;
    const reason = new Error(`${key} left this operator's cache (deleted, or moved to another shard)`);
    for (const controller of running instanceof Set ? [...running] : [running]) controller.abort(reason);
  }
}
