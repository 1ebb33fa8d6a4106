// The workload the operator serves while faults run: it creates AgentDeployments, changes
// them (a new image, a rotated Secret value), suspends and resumes them, and deletes them
// (both deletion policies, and while suspended), at random, and keeps a model of what
// should be true afterwards. It also makes the ordinary mistakes of a bad day: objects the
// control plane rejects (an unknown listener id) and objects in a second namespace that
// claim the control-plane name of an existing one. Every write is retried until
// the API server accepted it, because the kube faults hit this driver too; the model is
// updated only once a write is known to have happened.
import { isAlreadyExists, isNotFound } from '../../src/runtime/kube/errors.js';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { NAMESPACE, containerAgent, type Stack } from '../operator/harness.js';
import type { SeededRandom } from './random.js';

export type DeletionPolicy = 'Delete' | 'Orphan';

export interface TrackedObject {
  name: string;
  policy: DeletionPolicy;
  image: string;
  /** The Secret whose `token` key the deployment gets as API_TOKEN, or none. */
  secretName?: string;
  deleted: boolean;
  /**
   * The deployment id the object carried when the suite deleted it. An object deleted
   * before the operator created its deployment has none, and then leaves none behind.
   */
  deploymentIdAtDeletion?: string;
  /** spec.suspend is true (set only once the object had a deployment). */
  suspended: boolean;
  /** Another object, in the second namespace, claims the same control-plane name. */
  contested: boolean;
}

/** An object the workload expects to stay Stalled: rejected, or the younger of a name clash. */
export interface StalledObject {
  namespace: string;
  name: string;
  reason: 'Rejected' | 'NameConflict';
  deleted: boolean;
}

export interface WorkloadCounts {
  created: number;
  imageChanges: number;
  secretRotations: number;
  deletedWithDelete: number;
  deletedWithOrphan: number;
  deletedWhileSuspended: number;
  suspends: number;
  resumes: number;
  rejectedCreated: number;
  clashesCreated: number;
  /** Driver calls repeated after an injected failure, a reset or a restart. */
  writeRetries: number;
}

/** The Secrets the objects share; rotating one changes every object that references it. */
export const SECRET_NAMES = ['chaos-secret-a', 'chaos-secret-b', 'chaos-secret-c'] as const;
export const SECRET_KEY = 'token';
export const SECRET_ENV_NAME = 'API_TOKEN';
/** The namespace of the objects that claim an existing object's control-plane name. */
export const CLASH_NAMESPACE = 'chaos-b';
/** A listener the control plane does not know: every create is rejected (400/422). */
const UNKNOWN_LISTENER_ID = '99999999-9999-4999-8999-999999999999';
const MAX_STALLED_OBJECTS = 6;

export interface WorkloadLimits {
  maxLiveObjects: number;
  maxCreatedObjects: number;
}

export class Workload {
  readonly objects = new Map<string, TrackedObject>();
  readonly stalled: StalledObject[] = [];
  readonly secretValues = new Map<string, string>();
  /** Every value ever written, current or rotated away. */
  readonly everySecretValue = new Set<string>();
  /** What the driver did and when (no secret values), written next to the operator log. */
  readonly journal: string[] = [];
  readonly counts: WorkloadCounts = {
    created: 0,
    imageChanges: 0,
    secretRotations: 0,
    deletedWithDelete: 0,
    deletedWithOrphan: 0,
    deletedWhileSuspended: 0,
    suspends: 0,
    resumes: 0,
    rejectedCreated: 0,
    clashesCreated: 0,
    writeRetries: 0,
  };
  private imageSerial = 0;
  private secretSerial = 0;
  private steps = 0;

  constructor(
    private readonly stack: Stack,
    private readonly listenerId: string,
    private readonly random: SeededRandom,
    private readonly limits: WorkloadLimits,
  ) {}

  live(): TrackedObject[] {
    return [...this.objects.values()].filter((object) => !object.deleted);
  }

  /** The Secrets exist before the first object refers to them (a missing one is a wait, not chaos). */
  async seedSecrets(): Promise<void> {
    for (const name of SECRET_NAMES) await this.rotate(name);
    await this.retry('namespace', async () => {
      try {
        await this.stack.client.create(
          { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CLASH_NAMESPACE } },
        );
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    });
  }

  /** One random step; the mix leans towards creating while few objects exist. */
  async step(): Promise<void> {
    const live = this.live();
    const canCreate =
      live.length < this.limits.maxLiveObjects && this.objects.size < this.limits.maxCreatedObjects;
    const deletable = live.filter((object) => !object.contested);
    const suspended = live.filter((object) => object.suspended);
    const canStall = this.stalled.length < MAX_STALLED_OBJECTS;
    const uncontested = live.filter((object) => !object.contested && !object.suspended);
    this.steps += 1;
    // Every run meets each mistake of a bad day at least once, early, whatever the draws.
    const owed = this.steps < 12 ? undefined : this.owedBadDay(uncontested, live);
    const action =
      owed ??
      this.random.weighted({
        create: canCreate ? (live.length < 10 ? 6 : 3) : 0,
        image: live.length > 0 ? 3 : 0,
        secret: 1,
        delete: deletable.length > 5 ? 2 : 0,
        rejected: canStall ? 0.5 : 0,
        clash: canStall && uncontested.length > 3 ? 0.5 : 0,
        suspend: live.length > 3 ? 1 : 0,
        resume: suspended.length > 0 ? 1 : 0,
        deleteStalled: this.stalled.some((object) => !object.deleted) ? 0.3 : 0,
      });
    if (action === 'create') await this.create();
    else if (action === 'image') await this.changeImage(this.random.pick(live));
    else if (action === 'secret') await this.rotateSecret();
    else if (action === 'rejected') await this.createRejected();
    else if (action === 'clash') await this.createClash(this.random.pick(uncontested));
    else if (action === 'suspend')
      await this.suspend(this.random.pick(live.filter((object) => !object.suspended)));
    else if (action === 'resume') await this.resume(this.random.pick(suspended));
    else if (action === 'deleteStalled')
      await this.removeStalled(this.random.pick(this.stalled.filter((object) => !object.deleted)));
    else await this.remove(this.random.pick(deletable));
  }

  private async create(): Promise<void> {
    const name = `chaos-${String(this.objects.size).padStart(3, '0')}`;
    const policy: DeletionPolicy = this.random.chance(0.5) ? 'Delete' : 'Orphan';
    const secretName = this.random.chance(0.7) ? this.random.pick(SECRET_NAMES) : undefined;
    const image = this.nextImage();
    const extra: Record<string, unknown> = {
      deletionPolicy: policy,
      sourceRevisionConfig: { imageUri: image },
      ...(secretName
        ? {
            secrets: [
              { name: SECRET_ENV_NAME, valueFrom: { secretKeyRef: { name: secretName, key: SECRET_KEY } } },
            ],
          }
        : {}),
    };
    // Recorded before the write: if the write happened but its answer was lost, the object
    // exists and the model must know it (the retry then sees AlreadyExists).
    this.objects.set(name, {
      name,
      policy,
      image,
      secretName,
      deleted: false,
      suspended: false,
      contested: false,
    });
    await this.retry(`create ${name}`, async () => {
      try {
        await this.stack.apply(containerAgent(name, this.listenerId, extra));
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    });
    this.counts.created += 1;
    this.note(`created ${name} policy=${policy} image=${image} secret=${secretName ?? 'none'}`);
  }

  private owedBadDay(
    uncontested: readonly TrackedObject[],
    live: readonly TrackedObject[],
  ): string | undefined {
    if (this.counts.rejectedCreated === 0) return 'rejected';
    if (this.counts.clashesCreated === 0 && uncontested.length > 0) return 'clash';
    if (this.counts.suspends === 0 && live.some((object) => !object.suspended)) return 'suspend';
    return undefined;
  }

  /** An object whose create the control plane rejects: it must stay Stalled, and cheap. */
  private async createRejected(): Promise<void> {
    const name = `chaos-rejected-${this.stalled.length}`;
    this.stalled.push({ namespace: NAMESPACE, name, reason: 'Rejected', deleted: false });
    await this.retry(`create ${name}`, async () => {
      try {
        await this.stack.apply(containerAgent(name, UNKNOWN_LISTENER_ID));
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    });
    this.counts.rejectedCreated += 1;
    this.note(`created ${name} with an unknown listener id`);
  }

  /** A younger object in another namespace claiming `rival`'s name: it must never take it. */
  private async createClash(rival: TrackedObject): Promise<void> {
    // Name claims go to the older object, and creation times have one-second resolution: a
    // clash created in the rival's own second is a tie the uid breaks either way, so the
    // clash is made from the next second on (the rival exists: its create step returned).
    const current = await this.retry(`get ${rival.name}`, () => this.stack.get(rival.name));
    const rivalBorn = Date.parse(current.metadata.creationTimestamp ?? '');
    const laterSecond = (Number.isNaN(rivalBorn) ? Date.now() : rivalBorn) + 1_000;
    if (Date.now() < laterSecond)
      await new Promise((resolve) => setTimeout(resolve, laterSecond - Date.now()));
    rival.contested = true;
    this.stalled.push({
      namespace: CLASH_NAMESPACE,
      name: rival.name,
      reason: 'NameConflict',
      deleted: false,
    });
    const object = containerAgent(rival.name, this.listenerId);
    object.metadata.namespace = CLASH_NAMESPACE;
    await this.retry(`create ${CLASH_NAMESPACE}/${rival.name}`, async () => {
      try {
        await this.stack.client.create(AGENT_DEPLOYMENTS, object);
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    });
    this.counts.clashesCreated += 1;
    this.note(`created ${CLASH_NAMESPACE}/${rival.name}, claiming the name of ${NAMESPACE}/${rival.name}`);
  }

  private async removeStalled(object: StalledObject): Promise<void> {
    object.deleted = true;
    await this.retry(`delete ${object.namespace}/${object.name}`, async () => {
      try {
        await this.stack.client.delete(AGENT_DEPLOYMENTS, object.namespace, object.name);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    });
    this.note(`deleted ${object.namespace}/${object.name} (${object.reason})`);
  }

  /** Suspends an object that has its deployment (a suspended object creates nothing). */
  private async suspend(object: TrackedObject): Promise<void> {
    const current = await this.retry(`get ${object.name}`, () => this.stack.get(object.name));
    if (object.suspended || !current.status?.deploymentId) return;
    await this.retry(`suspend ${object.name}`, () => this.stack.patchSpec(object.name, { suspend: true }));
    object.suspended = true;
    this.counts.suspends += 1;
    this.note(`suspended ${object.name}`);
  }

  private async resume(object: TrackedObject): Promise<void> {
    await this.retry(`resume ${object.name}`, () => this.stack.patchSpec(object.name, { suspend: false }));
    object.suspended = false;
    this.counts.resumes += 1;
    this.note(`resumed ${object.name}`);
  }

  private async changeImage(object: TrackedObject): Promise<void> {
    const image = this.nextImage();
    await this.retry(`patch ${object.name}`, () =>
      this.stack.patchSpec(object.name, { sourceRevisionConfig: { imageUri: image } }),
    );
    object.image = image;
    this.counts.imageChanges += 1;
    this.note(`patched ${object.name} image=${image}`);
  }

  private async rotateSecret(): Promise<void> {
    await this.rotate(this.random.pick(SECRET_NAMES));
    this.counts.secretRotations += 1;
  }

  private async rotate(secretName: string): Promise<void> {
    this.secretSerial += 1;
    const value = `chaos-value-${this.secretSerial}-${this.random.int(0, 1e9).toString(36)}`;
    await this.retry(`secret ${secretName}`, () => this.stack.putSecret(secretName, { [SECRET_KEY]: value }));
    this.secretValues.set(secretName, value);
    this.everySecretValue.add(value);
    this.note(`rotated ${secretName} (value #${this.secretSerial})`);
  }

  private async remove(object: TrackedObject): Promise<void> {
    const current = await this.retry(`get ${object.name}`, () => this.stack.get(object.name));
    object.deploymentIdAtDeletion = current.status?.ownership?.deploymentId;
    object.deleted = true;
    // Deleting a suspended object leaves its deployment, whatever the policy.
    if (object.suspended) {
      object.policy = 'Orphan';
      this.counts.deletedWhileSuspended += 1;
    }
    await this.retry(`delete ${object.name}`, async () => {
      try {
        await this.stack.client.delete(AGENT_DEPLOYMENTS, NAMESPACE, object.name);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    });
    if (object.policy === 'Delete') this.counts.deletedWithDelete += 1;
    else this.counts.deletedWithOrphan += 1;
    this.note(
      `deleted ${object.name} policy=${object.policy} deployment=${object.deploymentIdAtDeletion ?? 'none yet'}`,
    );
  }

  private note(line: string): void {
    this.journal.push(`${new Date().toISOString()} ${line}`);
  }

  private nextImage(): string {
    this.imageSerial += 1;
    return `registry.example/chaos-agent:${this.imageSerial}`;
  }

  /**
   * Injected kube failures, latency and restarts hit this driver too: try until the API
   * server answers. Every call passed here is safe to repeat (see the callers).
   */
  private async retry<T>(what: string, call: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 60_000;
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`workload: ${what} still failing after 60 s: ${String(error)}`);
        }
        this.counts.writeRetries += 1;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 1_000)));
      }
    }
  }
}
