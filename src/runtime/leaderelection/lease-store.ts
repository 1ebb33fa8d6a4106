// Reads and writes the one Lease an elector competes for. The interface lets tests use an
// in-memory fake; `KubeLeaseStore` writes through the raw client so that the times keep their
// 6 fractional digits, and carries resourceVersion so that two candidates writing at once
// cannot both win (the loser gets 409 Conflict).
import type { KubeClient } from '../kube/client.js';
import { isNotFound } from '../kube/errors.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource.js';
import { formatMicroTime, parseMicroTime } from './micro-time.js';

export interface LeaderRecord {
  /** Empty when nobody holds the lease (released). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** Epoch ms. */
  acquireTime: number | undefined;
  renewTime: number | undefined;
  leaseTransitions: number;
}

export interface StoredLease {
  record: LeaderRecord;
  resourceVersion: string;
  /** Exactly what the server holds for the times, for tests of the wire format. */
  raw?: { acquireTime?: string; renewTime?: string };
}

export interface LeaseStore {
  readonly description: string;
  get(signal?: AbortSignal): Promise<StoredLease | undefined>;
  /** Fails with 409 AlreadyExists if another candidate created it first. */
  create(record: LeaderRecord, signal?: AbortSignal): Promise<StoredLease>;
  /** Fails with 409 Conflict if the lease changed since `resourceVersion`. */
  update(record: LeaderRecord, resourceVersion: string, signal?: AbortSignal): Promise<StoredLease>;
}

export const LEASE_TYPE: ResourceType = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };

interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
}

function toSpec(record: LeaderRecord): NonNullable<LeaseObject['spec']> {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    ...(record.acquireTime !== undefined ? { acquireTime: formatMicroTime(record.acquireTime) } : {}),
    ...(record.renewTime !== undefined ? { renewTime: formatMicroTime(record.renewTime) } : {}),
    leaseTransitions: record.leaseTransitions,
  };
}

function fromObject(lease: LeaseObject): StoredLease {
  const spec = lease.spec ?? {};
  return {
    record: {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: parseMicroTime(spec.acquireTime),
      renewTime: parseMicroTime(spec.renewTime),
      leaseTransitions: spec.leaseTransitions ?? 0,
    },
    resourceVersion: lease.metadata.resourceVersion ?? '',
    raw: { acquireTime: spec.acquireTime ?? undefined, renewTime: spec.renewTime ?? undefined },
  };
}

export class KubeLeaseStore implements LeaseStore {
  readonly description: string;
  /** The last Lease read or written, so an update keeps metadata others set (labels, owners). */
  private last: LeaseObject | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly name: string,
  ) {
    this.description = `lease ${namespace}/${name}`;
  }

  async get(signal?: AbortSignal): Promise<StoredLease | undefined> {
    try {
      return this.remember(await this.client.get<LeaseObject>(LEASE_TYPE, this.namespace, this.name, signal));
    } catch (error) {
      if (isNotFound(error)) {
        this.last = undefined;
        return undefined;
      }
      throw error;
    }
  }

  async create(record: LeaderRecord, signal?: AbortSignal): Promise<StoredLease> {
    const lease: LeaseObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: toSpec(record),
    };
    return this.remember(await this.client.create(LEASE_TYPE, lease, { signal }));
  }

  async update(record: LeaderRecord, resourceVersion: string, signal?: AbortSignal): Promise<StoredLease> {
    const lease: LeaseObject = {
      ...(this.last ?? { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }),
      metadata: {
        ...(this.last?.metadata ?? {}),
        name: this.name,
        namespace: this.namespace,
        resourceVersion,
      },
      spec: { ...(this.last?.spec ?? {}), ...toSpec(record) },
    };
    return this.remember(await this.client.replace(LEASE_TYPE, lease, { signal }));
  }

  private remember(lease: LeaseObject): StoredLease {
    this.last = lease;
    return fromObject(lease);
  }
}
