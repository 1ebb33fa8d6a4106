// The workload the operator serves while faults run: it creates AgentDeployments, changes
// them (a new image, a rotated Secret value) and deletes them (both deletion policies), at
// random, and keeps a model of what should be true afterwards. Every write is retried until
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
}

export interface WorkloadCounts {
  created: number;
  imageChanges: number;
  secretRotations: number;
  deletedWithDelete: number;
  deletedWithOrphan: number;
  /** Driver calls repeated after an injected failure, a reset or a restart. */
  writeRetries: number;
}

/** The Secrets the objects share; rotating one changes every object that references it. */
export const SECRET_NAMES = ['chaos-secret-a', 'chaos-secret-b', 'chaos-secret-c'] as const;
export const SECRET_KEY = 'token';
export const SECRET_ENV_NAME = 'API_TOKEN';
/** Where the operator records the id of the deployment it manages (src/reconcilers/agentdeployment/object.ts). */
const DEPLOYMENT_ID_ANNOTATION = 'agentplatform.io/deployment-id';

export interface WorkloadLimits {
  maxLiveObjects: number;
  maxCreatedObjects: number;
}

export class Workload {
  readonly objects = new Map<string, TrackedObject>();
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
    writeRetries: 0,
  };
  private imageSerial = 0;
  private secretSerial = 0;

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
  }

  /** One random step; the mix leans towards creating while few objects exist. */
  async step(): Promise<void> {
    const live = this.live();
    const canCreate =
      live.length < this.limits.maxLiveObjects && this.objects.size < this.limits.maxCreatedObjects;
    const action = this.random.weighted({
      create: canCreate ? (live.length < 10 ? 6 : 3) : 0,
      image: live.length > 0 ? 3 : 0,
      secret: 1,
      delete: live.length > 5 ? 2 : 0,
    });
    if (action === 'create') await this.create();
    else if (action === 'image') await this.changeImage(this.random.pick(live));
    else if (action === 'secret') await this.rotateSecret();
    else await this.remove(this.random.pick(live));
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
    this.objects.set(name, { name, policy, image, secretName, deleted: false });
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
    object.deploymentIdAtDeletion =
      current.metadata.annotations?.[DEPLOYMENT_ID_ANNOTATION] ?? current.status?.deploymentId;
    object.deleted = true;
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
