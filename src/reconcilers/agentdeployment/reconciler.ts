// reconcile(key) for AgentDeployment: the kit's pass runner over the pure `decide`.
//
//   observe (observe.ts: cache, fleet, memory, now) → decide → [one more read → decide]…
//     → perform (perform.ts: one action, publish) → the one error policy for a failure
//
// It is level-triggered and idempotent: it never asks why it was called. `perform` makes at
// most one control-plane mutation; status is written only when it changed, and events come
// from that change (events.ts). The AbortSignal from the controller reaches every call, so
// losing the lease stops the pass before its next write. A pass carries its own context
// (pass-context.ts): the key, the object, the lane of its connection, its memory.
import { runPass, type Observation } from '../../runtime/reconcile/pass.js';
import type { ReconcileResult } from '../../runtime/reconcile/result.js';
import type { Action } from './action.js';
import { decide } from './decide.js';
import { DEFAULT_TIMINGS } from './defaults.js';
import type { ReconcilerDeps } from './deps.js';
import { KeyMemoryStore } from './key-memory.js';
import type { AgentDeploymentView } from './object.js';
import type { Observed } from './observed.js';
import { Observer } from './observe.js';
import { PassContext, type PassFailure, type Shell } from './pass-context.js';
import { Performer } from './perform.js';
import type { ControlPlaneLane } from './ports.js';
import { specReferences } from './spec-references.js';

export type { ReconcilerDeps } from './deps.js';

/** Reads a pass may make before it acts (a name lookup, a deployment, a revision). */
const MAX_READS = 4;
const DEFAULT_LANE_ID = 'default';

interface Facts<Object extends AgentDeploymentView> {
  pass: PassContext<Object>;
  observed: Observed;
}

export class AgentDeploymentReconciler<Object extends AgentDeploymentView> {
  private readonly shell: Shell<Object>;
  /** Ends the background smoke-test calls when the operator stops. */
  private readonly background = new AbortController();
  private readonly defaultLane: ControlPlaneLane;
  /** The lane each key's calls go through (the controller runs one pass per key at a time). */
  private readonly lanes = new Map<string, ControlPlaneLane>();
  private readonly observer: Observer<Object>;
  private readonly performer: Performer<Object>;

  constructor(deps: ReconcilerDeps<Object>) {
    this.shell = { deps, timings: { ...DEFAULT_TIMINGS, ...deps.timings }, memory: new KeyMemoryStore() };
    this.defaultLane = {
      id: DEFAULT_LANE_ID,
      controlPlane: deps.controlPlane,
      observations: deps.observations,
      poller: deps.poller,
    };
    this.observer = new Observer(this.shell);
    this.performer = new Performer(this.shell, this.background.signal, (pass) =>
      this.reconcile(pass.key, pass.signal),
    );
  }

  /** Aborts the smoke-test calls still running; their outcomes are dropped. */
  stop(): void {
    this.background.abort();
  }

  reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    return runPass<Facts<Object>, Action, PassFailure<Object>>(
      {
        observe: () => this.observe(key, signal),
        decide: ({ observed }) => decide(observed, this.shell.timings),
        read: (action, facts) => this.read(action, facts),
        perform: (action, { pass, observed }) => this.performer.perform(pass, observed, action),
        errorPolicy: (failure, passSignal) => this.performer.afterFailure(failure, passSignal),
        maxReads: MAX_READS,
        onTooManyReads: () =>
          this.shell.deps.logger.error({ key }, 'reconcile asked for more reads than allowed'),
      },
      signal,
    );
  }

  private async observe(
    key: string,
    signal: AbortSignal,
  ): Promise<Observation<Facts<Object>, PassFailure<Object>>> {
    const { deps } = this.shell;
    const object = deps.kube.get(key);
    if (!object) {
      this.shell.memory.forget(key);
      this.laneOf(key).poller.untrackKey(key);
      this.lanes.delete(key);
      return undefined;
    }
    // The smoke test's header Secrets too: their versions are part of its digest. A spec that
    // references none (most) has nothing to read, and no read's machinery runs for it.
    const { namespace } = object.metadata;
    const { loadedSecretNames, configMapNames } = specReferences(object);
    const loaded =
      loadedSecretNames.length === 0
        ? undefined
        : await deps.kube.loadSecrets?.(namespace, loadedSecretNames, signal);
    if (loaded && !loaded.ok) return { failure: { object, error: loaded.error } };
    const loadedConfigMaps =
      configMapNames.length === 0
        ? undefined
        : await deps.kube.loadConfigMaps?.(namespace, configMapNames, signal);
    if (loadedConfigMaps && !loadedConfigMaps.ok)
      return { failure: { object, error: loadedConfigMaps.error } };
    const connection = deps.connection?.(object) ?? { ok: true, lane: this.defaultLane };
    // A refused connection gets no lane: decide makes no call then, only status is written.
    if (connection.ok) this.enterLane(key, connection.lane);
    const pass = new PassContext(key, object, this.laneOf(key), signal, this.shell.memory);
    const ids =
      connection.ok && object.metadata.deletionTimestamp === undefined
        ? await this.observer.resolveIds(object, connection.lane, signal)
        : { ok: true as const, ids: {} };
    return { facts: { pass, observed: this.observer.observe(pass, connection, ids) } };
  }

  /** The facts after the read `action` asks for; undefined when it asks for no read. */
  private read(action: Action, { pass, observed }: Facts<Object>): Promise<Facts<Object>> | undefined {
    switch (action.kind) {
      case 'observeDeployment':
        return this.observer
          .readDeployment(pass, action.id, action.maxAgeMs)
          .then((deployment) => ({ pass, observed: { ...observed, deployment } }));
      case 'observeName':
        return this.observer.readName(pass, observed, action.name).then((next) => ({ pass, observed: next }));
      case 'observeRevision':
        return this.observer
          .readRevision(pass, observed, action.deploymentId, action.revisionId)
          .then((next) => ({ pass, observed: next }));
      default:
        return undefined;
    }
  }

  /** The control plane behind a connection is another one: what was known of the key there no longer holds. */
  private enterLane(key: string, lane: ControlPlaneLane): void {
    const previous = this.lanes.get(key);
    if (previous !== undefined && previous.id !== lane.id) {
      previous.poller.untrackKey(key);
      this.shell.memory.forget(key);
    }
    this.lanes.set(key, lane);
  }

  private laneOf(key: string): ControlPlaneLane {
    return this.lanes.get(key) ?? this.defaultLane;
  }
}
