// The shell's reads: what a pass knows before `decide` (the object, its spec resolved with
// Secret values and named ids, ownership and the fleet's claims, this key's memory), and the
// one-more reads decide may ask for (a deployment, deployments by name, a revision). Every
// read goes through the pass's lane; nothing here writes.
import { SMOKE_TEST_DEFAULT_TIMEOUT_SECONDS } from '../../api/agentdeployment/index.js';
import { specKey } from './decide.js';
import { olderOwnerOf, rivalFor } from './name-claims.js';
import { isSettled } from './update-predicate.js';
import {
  DEPLOYMENT_ID_ANNOTATION,
  RECONCILE_REQUESTED_AT_ANNOTATION,
  REDEPLOY_AT_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
  generationOf,
  hasFinalizer,
  isDeploymentId,
  ownedDeploymentId,
  ownershipOf,
  recordedSecretVersions,
  type AgentDeploymentView,
} from './object.js';
import type { DeploymentReading, NameReading, Observed, RefusedAttempt, SpecReading } from './observed.js';
import { revisionPollIntervalMs, type PassContext, type Shell } from './pass-context.js';
import type { ControlPlaneLane, ControlPlanePort, LaneResolution, NameLookup, ResolvedIds } from './ports.js';
import type { KeyMemory } from './key-memory.js';
import { resolveSecrets } from './secrets.js';
import { memoFor, rememberedDesired, rememberedProblem } from './spec-memo.js';
import { smokeTestSpecHash } from './smoke-test.js';
import { smokeTestHeaderVersions } from './smoke-test-headers.js';
import type { SecretSource } from './secrets.js';
import type { ExportReading } from './export.js';

/**
 * Whether a revision GET may be made, read when `decide` asks: only a revision in progress
 * does, and reading the budget's headroom (a report of every row of the key's budget) on
 * every pass of every deployed object was a cost of each no-op reconcile. Read once a pass.
 */
function revisionPollReading(
  dueInMs: number,
  /** The port whose budget decides, when the poll's pace allows one now; undefined: it does not. */
  due: Pick<ControlPlanePort, 'budgetHeadroom'> | undefined,
  minHeadroom: number,
): Observed['revisionPoll'] {
  let allowed: boolean | undefined;
  return {
    dueInMs,
    get allowed(): boolean {
      allowed ??= due !== undefined && due.budgetHeadroom() >= minHeadroom;
      return allowed;
    },
  };
}

/** The named ids of a pass, or the spec reading that says why they are not there. */
export type IdsReading = { ok: true; ids: ResolvedIds } | { ok: false; spec: SpecReading };

const NO_NAMED_IDS: IdsReading = Object.freeze({ ok: true, ids: Object.freeze({}) });

export class Observer<Object extends AgentDeploymentView> {
  constructor(private readonly shell: Shell<Object>) {}

  /** The ids the spec names by name, looked up on the object's own control plane. */
  resolveIds(object: Object, lane: ControlPlaneLane, signal: AbortSignal): Promise<IdsReading> | IdsReading {
    const named = this.shell.deps.namedIds?.(object) ?? {};
    // Most specs give ids, not names: nothing to look up, and no lookup's machinery per pass.
    if (named.listener === undefined && named.integration === undefined) return NO_NAMED_IDS;
    return this.lookUpIds(named, lane, signal);
  }

  private async lookUpIds(
    named: { listener?: string; integration?: string },
    lane: ControlPlaneLane,
    signal: AbortSignal,
  ): Promise<IdsReading> {
    const ids: ResolvedIds = {};
    const lookups: Array<[keyof ResolvedIds, string, string | undefined]> = [
      ['listenerId', 'spec.sourceConfig.listenerRef.name', named.listener],
      ['integrationId', 'spec.sourceConfig.integrationRef.name', named.integration],
    ];
    for (const [field, path, name] of lookups) {
      if (name === undefined) continue;
      const found: NameLookup = lane.names
        ? await (field === 'listenerId'
            ? lane.names.listenerId(name, signal)
            : lane.names.integrationId(name, signal))
        : { ok: false, unknown: 'names cannot be resolved on this connection; give the id' };
      if (found.ok) ids[field] = found.id;
      else if ('unknown' in found)
        return { ok: false, spec: { kind: 'unknownName', message: `${path}: ${found.unknown}` } };
      else return { ok: false, spec: { kind: 'namesFailed', error: found.error } };
    }
    return { ok: true, ids };
  }

  observe(pass: PassContext<Object>, connection: LaneResolution, ids: IdsReading): Observed {
    const { deps, timings } = this.shell;
    const { key, object } = pass;
    const now = deps.clock.now();
    const uid = object.metadata.uid ?? '';
    const ownership = ownershipOf(object);
    const ownedId = ownedDeploymentId(object);
    const createRequestedAt = ownership?.createRequestedAt
      ? Date.parse(ownership.createRequestedAt)
      : undefined;
    const annotations = object.metadata.annotations ?? {};
    const hint = annotations[DEPLOYMENT_ID_ANNOTATION];
    const hintedDeploymentId = isDeploymentId(hint) ? hint : undefined;
    const name = this.deploymentNameOf(object);
    const observedObject = {
      key,
      uid,
      generation: generationOf(object),
      deleting: object.metadata.deletionTimestamp !== undefined,
      hasFinalizer: hasFinalizer(object),
      suspend: object.spec.suspend === true,
      adoptExisting: object.spec.adoptExisting === true,
      observeOnly: object.spec.managementPolicy === 'ObserveOnly',
      deletionPolicy: object.spec.deletionPolicy ?? 'Delete',
      deleteTracingProject: object.spec.tracingProjectDeletionPolicy === 'Delete',
      deploymentName: name,
      ...(hintedDeploymentId !== undefined ? { hintedDeploymentId } : {}),
      ...(annotations[REDEPLOY_AT_ANNOTATION] !== undefined
        ? { redeployAt: annotations[REDEPLOY_AT_ANNOTATION] }
        : {}),
      ...(annotations[RECONCILE_REQUESTED_AT_ANNOTATION] !== undefined
        ? { reconcileRequestedAt: annotations[RECONCILE_REQUESTED_AT_ANNOTATION] }
        : {}),
      ...smokeTestOf(object, (secretName) => deps.kube.getSecret(object.metadata.namespace, secretName)),
      ...(object.spec.rollback?.onFailure === true ? { rollbackOnFailure: true } : {}),
      ...(annotations[ROLLBACK_TO_ANNOTATION] !== undefined
        ? { rollbackTo: annotations[ROLLBACK_TO_ANNOTATION] }
        : {}),
    };
    const claims: Record<string, string> = {};
    if (hintedDeploymentId !== undefined) this.noteClaim(claims, key, hintedDeploymentId);
    const memory = pass.memory;
    const spec = this.readSpec(object, ids, memory);
    const self = { key, uid, creationTimestamp: object.metadata.creationTimestamp ?? '' };
    // Names are unique per control plane: only objects on this object's lane compete for one.
    const claimants = connection.ok ? deps.fleet.claimantsOf(name, connection.lane.id, key) : [];
    const disputedBy =
      ownedId === undefined ? undefined : olderOwnerOf({ ...self, ownedDeploymentId: ownedId }, claimants);
    const adoptionForbidden = deps.adoptionForbidden?.(object.metadata.namespace);
    // Only a pass that may adopt (adoptExisting, or a deployment-id hint) or observe a
    // deployment it does not own (ObserveOnly, under the same rule) needs the records.
    const mayAdopt =
      observedObject.adoptExisting || observedObject.observeOnly || hintedDeploymentId !== undefined;
    const orphanedHere =
      adoptionForbidden === undefined || !mayAdopt
        ? []
        : (deps.orphans?.orphanedBy(object.metadata.namespace) ?? []);
    const observed: Observed = {
      now,
      object: observedObject,
      status: object.status ?? {},
      ownership: {
        ...(ownedId !== undefined ? { deploymentId: ownedId } : {}),
        ...(disputedBy !== undefined ? { disputedBy } : {}),
        ...(createRequestedAt !== undefined && !Number.isNaN(createRequestedAt) ? { createRequestedAt } : {}),
      },
      spec,
      ...(adoptionForbidden !== undefined ? { adoptionForbidden } : {}),
      ...(orphanedHere.length > 0 ? { orphanedHere } : {}),
      claims,
      deployment: { kind: 'unobserved' },
      byName: { kind: 'unobserved' },
      knownRevisions: Object.fromEntries(memory.revisionStatus),
      revisionPoll: revisionPollReading(
        memory.nextRevisionPollAt - now,
        connection.ok && now >= memory.nextRevisionPollAt ? connection.lane.controlPlane : undefined,
        timings.revisionPollMinHeadroom,
      ),
      ...(memory.smokeTest ? { smokeTestAttempts: { ...memory.smokeTest } } : {}),
      ...(memory.refusedCreate ? { refusedCreate: memory.refusedCreate } : {}),
    };
    const exportReading = this.readExport(object, observedObject.observeOnly);
    if (exportReading !== undefined) observed.export = exportReading;
    if (!connection.ok) {
      const { reason, message } = connection;
      return { ...observed, connectionRefused: { reason, message } };
    }
    const agentTrust = connection.agentTrust ?? deps.agentTrust;
    if (agentTrust !== undefined) observed.agentTrust = agentTrust;
    if (connection.label !== undefined) observed.connectionLabel = connection.label;
    const rival = ownedId === undefined ? rivalFor(self, claimants) : undefined;
    if (rival !== undefined) observed.rival = rival;
    const refused = memory.refused ?? refusedFromStatus(observed);
    if (refused) observed.refused = refused;
    return observed;
  }

  async readDeployment(pass: PassContext<Object>, id: string, maxAgeMs: number): Promise<DeploymentReading> {
    const { deps, timings } = this.shell;
    const { key, lane } = pass;
    const now = deps.clock.now();
    if (maxAgeMs > 0) {
      const cached = lane.observations.fresh(id, maxAgeMs, now);
      if (cached?.kind === 'present') return { kind: 'present', deployment: cached.deployment };
      // The poller wakes one key per id: an object whose record another object disputes
      // reads by GET, so that it cannot take the owner's wake-ups.
      const follower = lane.poller.followerOf(id);
      if (cached === undefined && (follower === undefined || follower === key)) {
        // Batched: the poller fetches it with up to 99 others and enqueues this key; a settled
        // object's want waits behind the rollouts in flight (a new leader has thousands).
        lane.poller.want(id, key, isSettled(pass.object) ? 'low' : 'normal');
        // While its rounds fail, say so rather than wait silently (it retries after its backoff).
        const failing = lane.poller.lastFailure;
        if (failing) return { kind: 'failed', error: failing };
        // The poller wakes this key when the observation arrives; this is the safety net, after
        // the poller's own estimate of the wait (minutes with a new leader's 100,000 wants).
        return {
          kind: 'pending',
          retryAfterMs: timings.inflightPollMs * 2 + 2 * lane.poller.wantWaitEstimateMs(),
        };
      }
    }
    // Asked for now, or a list did not return it: a GET decides.
    const result = await lane.controlPlane.getDeployment(id, pass.signal);
    if (result.ok) {
      lane.observations.recordPresent(result.value, deps.clock.now());
      return { kind: 'present', deployment: result.value };
    }
    if (result.error.kind === 'NotFound') return { kind: 'gone' };
    return { kind: 'failed', error: result.error };
  }

  async readName(pass: PassContext<Object>, observed: Observed, name: string): Promise<Observed> {
    const result = await pass.lane.controlPlane.findDeploymentsByName(name, pass.signal);
    if (!result.ok) return { ...observed, byName: { kind: 'failed', error: result.error } };
    const claims = { ...observed.claims };
    for (const deployment of result.value) this.noteClaim(claims, pass.key, deployment.id);
    const byName: NameReading = { kind: 'found', deployments: result.value };
    return { ...observed, byName, claims };
  }

  async readRevision(
    pass: PassContext<Object>,
    observed: Observed,
    deploymentId: string,
    revisionId: string,
  ): Promise<Observed> {
    const { deps, timings } = this.shell;
    const memory = pass.memory;
    const now = deps.clock.now();
    memory.nextRevisionPollAt = now + revisionPollIntervalMs(timings, pass.lane);
    const revisionPoll = { allowed: false, dueInMs: memory.nextRevisionPollAt - now };
    const revision = await pass.lane.controlPlane.getRevision(deploymentId, revisionId, pass.signal);
    if (!revision.ok) {
      // Optional: the deployment list carries success; a failed poll only delays the news.
      if (revision.error.kind !== 'Throttled') {
        deps.logger.debug({ key: pass.key, error: revision.error.message }, 'revision poll failed');
      }
      return { ...observed, revisionPoll };
    }
    memory.revisionStatus.set(revisionId, revision.value.status);
    return {
      ...observed,
      revisionPoll,
      knownRevisions: { ...observed.knownRevisions, [revisionId]: revision.value.status },
    };
  }

  /** spec.export and what this object exported (ObserveOnly writes nothing, so it reads nothing). */
  private readExport(object: Object, observeOnly: boolean): ExportReading | undefined {
    const exports = this.shell.deps.exports;
    const uid = object.metadata.uid;
    if (exports === undefined || observeOnly || uid === undefined) return undefined;
    const { namespace } = object.metadata;
    const target = object.spec.export?.configMapName;
    return {
      ...(target === undefined ? {} : { target }),
      owned: exports.owned(namespace, uid),
      foreign: target === undefined ? false : exports.foreign(namespace, target, uid),
    };
  }

  private deploymentNameOf(object: Object): string {
    try {
      return this.shell.deps.deploymentName(object);
    } catch {
      return object.metadata.name;
    }
  }

  private readSpec(object: Object, ids: IdsReading, memory: KeyMemory): SpecReading {
    const { deps } = this.shell;
    const identity = { uid: object.metadata.uid, generation: object.metadata.generation };
    const remembered = rememberedProblem(memory.spec, identity);
    const problem = remembered === 'unknown' ? deps.specProblem(object) : remembered;
    if (remembered === 'unknown') memory.spec = memoFor(identity, problem);
    if (problem !== undefined) return { kind: 'invalid', message: problem };
    if (!ids.ok) return ids.spec;
    const { namespace } = object.metadata;
    const resolution = resolveSecrets(
      object.spec.secrets,
      {
        secret: (name) => deps.kube.getSecret(namespace, name),
        configMap: (name) => deps.kube.getConfigMap?.(namespace, name),
      },
      object.spec.envFrom,
    );
    if (!resolution.ok) {
      // The desired request holds the values of the Secrets it was resolved from: one of them is
      // gone (or its key is), so the request goes too, as the Secret cache lets go of its values.
      if (memory.spec?.desired !== undefined) memory.spec = memoFor(identity, undefined);
      return { kind: 'secretMissing', message: resolution.message };
    }
    const versions = resolution.versions;
    const known = rememberedDesired(memory.spec, identity, ids.ids, versions);
    if (known !== undefined) return { kind: 'valid', desired: known, secretVersions: versions };
    try {
      const desired = deps.desiredState(object, resolution.secrets, ids.ids);
      memory.spec = memoFor(identity, undefined, { ids: ids.ids, versions, value: desired });
      return { kind: 'valid', desired, secretVersions: versions };
    } catch (error) {
      return { kind: 'invalid', message: `spec: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  private noteClaim(claims: Record<string, string>, key: string, id: string): void {
    const owner = this.shell.deps.fleet.ownerOf(id);
    if (owner !== undefined && owner !== key) claims[id] = owner;
  }
}

/** spec.smokeTest as decide reads it, with its digest; the API server defaults timeoutSeconds. */
function smokeTestOf(
  object: AgentDeploymentView,
  secret: (name: string) => SecretSource | undefined,
): {
  smokeTest?: NonNullable<Observed['object']['smokeTest']>;
} {
  const configured = object.spec.smokeTest;
  if (!configured) return {};
  const spec = {
    ...configured,
    timeoutSeconds: configured.timeoutSeconds ?? SMOKE_TEST_DEFAULT_TIMEOUT_SECONDS,
  };
  // A header Secret's new version is a new test.
  return { smokeTest: { spec, hash: smokeTestSpecHash(spec, smokeTestHeaderVersions(spec, secret)) } };
}

/**
 * After a restart, memory is empty, but status still says the control plane refused this
 * generation: treat that as the last attempt (at the condition's transition time), so a
 * restart does not send it again before the re-check is due.
 */
function refusedFromStatus(observed: Observed): RefusedAttempt | undefined {
  const stalled = observed.status.conditions?.find((condition) => condition.type === 'Stalled');
  if (stalled?.status !== 'True' || stalled.reason !== 'Rejected') return undefined;
  if (stalled.observedGeneration !== observed.object.generation) return undefined;
  const versions = observed.spec.kind === 'valid' ? observed.spec.secretVersions : {};
  const recorded = recordedSecretVersions(observed.status);
  const same =
    Object.keys(versions).length === Object.keys(recorded).length &&
    Object.entries(versions).every(([name, version]) => recorded[name] === version);
  if (!same) return undefined;
  return {
    specKey: specKey(observed),
    reason: 'Rejected',
    message: stalled.message,
    at: Date.parse(stalled.lastTransitionTime),
    recheckFailures: 0,
  };
}
