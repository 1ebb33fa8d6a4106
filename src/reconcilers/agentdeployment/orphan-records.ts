// Who orphaned which deployment. An object deleted with `deletionPolicy: Orphan` (or while
// suspended) leaves its deployment on the control plane for a migration; without a record,
// the first namespace allowed to adopt could take it, patch it and delete it. The operator
// writes the orphaning namespace into one ConfigMap in its own namespace (tenants have no
// rights there), before the object's finalizer is released, and a namespace may always
// adopt back what it orphaned; others only where --adoption-namespaces trusts them.
//
// The ConfigMap holds `deploymentId: {"namespace","name","orphanedAt"}` and at most
// MAX_RECORDS entries, oldest dropped first: a dropped record fails closed (the deployment
// is then adoptable only from --adoption-namespaces). Only the leader writes it; each
// replica reads it when it starts leading work and keeps its own writes in memory.
import type { Logger } from 'pino';
import type { KubeClient } from '../../runtime/kube/client.js';
import { KubeApiError } from '../../runtime/kube/errors.js';
import type { KubeObject } from '../../runtime/kube/objects.js';
import type { ResourceType } from '../../runtime/kube/resource.js';
import type { Outcome } from './ports.js';

const CONFIG_MAPS: ResourceType = { group: '', version: 'v1', plural: 'configmaps' };
/** About 110 bytes an entry: well under a ConfigMap's 1 MiB. */
export const MAX_RECORDS = 5_000;
/** A write that loses a race with another writer re-reads and tries again, this many times. */
const WRITE_ATTEMPTS = 3;

export interface OrphanRecord {
  namespace: string;
  /** The object that orphaned it. */
  name: string;
  orphanedAt: string;
}

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export class OrphanRecords {
  private records = new Map<string, OrphanRecord>();
  private byNamespace = new Map<string, string[]>();

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly name: string,
    private readonly logger: Logger,
  ) {}

  /** Reads the records (none when the ConfigMap does not exist yet). */
  async load(signal?: AbortSignal): Promise<Outcome<void>> {
    const read = await this.read(signal);
    if (!read.ok) return read;
    this.keep(parse(read.value?.data, this.logger));
    return { ok: true, value: undefined };
  }

  private keep(records: Map<string, OrphanRecord>): void {
    this.records = records;
    this.byNamespace = new Map();
    for (const [id, record] of records) {
      const ids = this.byNamespace.get(record.namespace) ?? [];
      ids.push(id);
      this.byNamespace.set(record.namespace, ids);
    }
  }

  /** The ids of the deployments `namespace` orphaned (an index, rebuilt on every change). */
  orphanedBy(namespace: string): readonly string[] {
    return this.byNamespace.get(namespace) ?? [];
  }

  record(deploymentId: string, record: OrphanRecord, signal?: AbortSignal): Promise<Outcome<void>> {
    return this.write(signal, (records) => {
      records.delete(deploymentId);
      records.set(deploymentId, record);
      while (records.size > MAX_RECORDS) {
        const oldest = records.keys().next().value;
        if (oldest === undefined) break;
        records.delete(oldest);
      }
    });
  }

  /** The deployment was adopted back: its record is spent. */
  forget(deploymentId: string, signal?: AbortSignal): Promise<Outcome<void>> {
    if (!this.records.has(deploymentId)) return Promise.resolve({ ok: true, value: undefined });
    return this.write(signal, (records) => records.delete(deploymentId));
  }

  private async write(
    signal: AbortSignal | undefined,
    change: (records: Map<string, OrphanRecord>) => void,
  ): Promise<Outcome<void>> {
    for (let attempt = 1; ; attempt++) {
      const read = await this.read(signal);
      if (!read.ok) return read;
      const current = read.value;
      const records = parse(current?.data, this.logger);
      change(records);
      const data = Object.fromEntries([...records].map(([id, record]) => [id, JSON.stringify(record)]));
      try {
        if (current === undefined) {
          await this.client.create(CONFIG_MAPS, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: this.name,
              namespace: this.namespace,
              labels: { 'app.kubernetes.io/managed-by': 'agent-operator' },
            },
            data,
          });
        } else {
          await this.client.replace(CONFIG_MAPS, { ...current, data });
        }
        this.keep(records);
        return { ok: true, value: undefined };
      } catch (error) {
        const status = error instanceof KubeApiError ? error.statusCode : undefined;
        // 409: another writer came first (or created it); read again and redo the change.
        if (status === 409 && attempt < WRITE_ATTEMPTS) continue;
        return { ok: false, error: failure(`writing ConfigMap ${this.namespace}/${this.name}`, status) };
      }
    }
  }

  private async read(signal?: AbortSignal): Promise<Outcome<ConfigMap | undefined>> {
    try {
      return {
        ok: true,
        value: await this.client.get<ConfigMap>(CONFIG_MAPS, this.namespace, this.name, signal),
      };
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return { ok: true, value: undefined };
      const status = error instanceof KubeApiError ? error.statusCode : undefined;
      return { ok: false, error: failure(`reading ConfigMap ${this.namespace}/${this.name}`, status) };
    }
  }
}

function failure(what: string, status: number | undefined) {
  return {
    kind: status === 409 ? ('Conflict' as const) : ('Transient' as const),
    message: `${what} failed${status === undefined ? '' : ` (HTTP ${status})`}`,
    ...(status === undefined ? {} : { status }),
  };
}

/**
 * Entries oldest first (the API server returns a ConfigMap's keys sorted by name, so the
 * order is rebuilt from orphanedAt); one that does not parse is dropped (fails closed), with
 * a warning.
 */
function parse(data: Record<string, string> | undefined, logger: Logger): Map<string, OrphanRecord> {
  const records = new Map<string, OrphanRecord>();
  for (const [id, text] of Object.entries(data ?? {})) {
    try {
      const value = JSON.parse(text) as Partial<OrphanRecord>;
      if (typeof value.namespace === 'string' && typeof value.name === 'string') {
        records.set(id, {
          namespace: value.namespace,
          name: value.name,
          orphanedAt: String(value.orphanedAt ?? ''),
        });
        continue;
      }
    } catch {
      // fall through to the warning
    }
    logger.warn({ deploymentId: id }, 'ignoring an unreadable orphan record');
  }
  return new Map([...records].sort(([, a], [, b]) => a.orphanedAt.localeCompare(b.orphanedAt)));
}
