// An in-memory Lease with resourceVersion checks, shared by several electors in one test.
import { KubeApiError } from '../../../src/runtime/kube/errors.js';
import type {
  LeaderRecord,
  LeaseStore,
  StoredLease,
} from '../../../src/runtime/leaderelection/lease-store.js';

export class FakeLease {
  current: StoredLease | undefined;
  private version = 0;
  writes = 0;
  /** While true, every call fails as if the API server were unreachable. */
  unreachable = false;

  storeFor(): LeaseStore {
    return {
      description: 'fake lease',
      get: () => this.call(() => this.current),
      create: (record) =>
        this.call(() => {
          if (this.current) throw new KubeApiError(409, 'AlreadyExists', 'exists');
          return this.write(record);
        }),
      update: (record, resourceVersion) =>
        this.call(() => {
          if (!this.current) throw new KubeApiError(404, 'NotFound', 'missing');
          if (this.current.resourceVersion !== resourceVersion)
            throw new KubeApiError(409, 'Conflict', 'stale');
          return this.write(record);
        }),
    };
  }

  private call<T>(fn: () => T): Promise<T> {
    if (this.unreachable) return Promise.reject(new KubeApiError(0, 'NetworkError', 'unreachable'));
    try {
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private write(record: LeaderRecord): StoredLease {
    this.version += 1;
    this.writes += 1;
    this.current = { record: { ...record }, resourceVersion: String(this.version) };
    return this.current;
  }
}
