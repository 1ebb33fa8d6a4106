// The deletion reconcilers on their own: an in-memory object cache and status store, events
// collected, a connection whose access the test switches, and a platform data client on the
// platform emulator that records every call it is asked to make. Fast enough for a row per
// situation; the operator end to end is in the other files of this folder.
import { pino } from 'pino';
import type {
  DeletionObjectMeta,
  ExampleDeletionObject,
  ExampleDeletionStatus,
  TraceDeletionObject,
  TraceDeletionStatus,
} from '../../src/api/deletion/index.js';
import { PlatformDataClient } from '../../src/platformdata/index.js';
import { ExampleDeletionReconciler } from '../../src/reconcilers/exampledeletion/reconciler.js';
import { TraceDeletionReconciler } from '../../src/reconcilers/tracedeletion/reconciler.js';
import type {
  DeletionKubePort,
  DeletionPlatformClient,
  PlatformAccess,
} from '../../src/reconcilers/deletion/ports.js';
import type { WriteOutcome } from '../../src/runtime/reconcile/object-port.js';
import { KEY, startPlatform } from '../platform-emulator/helpers.js';

export const RECHECK_MS = 30_000;
export const TIMINGS = { verifyIntervalMs: 1_000, verifyDeadlineMs: 60_000, blockedRecheckMs: RECHECK_MS };

interface Stored<S> {
  metadata: DeletionObjectMeta;
  status?: S;
}

export interface RecordedEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The informer cache and the status subresource of one namespace, in memory. */
export class MemoryKube<T extends Stored<S>, S extends object> implements DeletionKubePort<T> {
  readonly events: RecordedEvent[] = [];
  private readonly objects = new Map<string, T>();

  put(object: T): string {
    const key = keyOf(object);
    this.objects.set(key, structuredClone(object));
    return key;
  }

  get(key: string): T | undefined {
    const object = this.objects.get(key);
    return object === undefined ? undefined : structuredClone(object);
  }

  patchStatus(object: T, status: NonNullable<T['status']>): Promise<WriteOutcome<T>> {
    const stored = this.objects.get(keyOf(object));
    if (stored === undefined) return Promise.resolve({ ok: false, reason: 'Gone', message: 'not found' });
    stored.status = structuredClone(status);
    return Promise.resolve({ ok: true, value: structuredClone(stored) });
  }

  /** Deletions carry no finalizer: a call is a defect of the reconciler. */
  patchFinalizers(): Promise<WriteOutcome<T>> {
    return Promise.reject(new Error('a deletion reconciler wrote finalizers'));
  }

  event(_object: T, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.push({ type, reason, message });
  }
}

function keyOf(object: { metadata: DeletionObjectMeta }): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

export type Refusal = { reason: string; message: string };

/**
 * The connection as the operator resolves it: refused while `refusal` is set, else a client
 * whose every call is recorded in `calls` (by method name) before it goes to the emulator.
 */
export class SwitchableConnection {
  refusal: Refusal | undefined;
  readonly calls: string[] = [];

  constructor(private readonly client: DeletionPlatformClient) {}

  readonly platformFor = (): PlatformAccess => {
    if (this.refusal !== undefined) return { ok: false, ...this.refusal };
    return { ok: true, client: recording(this.client, this.calls), label: 'test connection' };
  };
}

function recording(inner: DeletionPlatformClient, calls: string[]): DeletionPlatformClient {
  return {
    deleteTraces: (...args) => {
      calls.push('deleteTraces');
      return inner.deleteTraces(...args);
    },
    deleteTracesByMetadata: (...args) => {
      calls.push('deleteTracesByMetadata');
      return inner.deleteTracesByMetadata(...args);
    },
    queryRuns: (...args) => {
      calls.push('queryRuns');
      return inner.queryRuns(...args);
    },
    searchExamples: (...args) => {
      calls.push('searchExamples');
      return inner.searchExamples(...args);
    },
    deleteExamples: (...args) => {
      calls.push('deleteExamples');
      return inner.deleteExamples(...args);
    },
  };
}

/** The platform emulator for this test file (closed after it), and a client with its key. */
export async function platformForTests() {
  const api = await startPlatform({ traceDeleteDelayMs: 0 });
  const client = new PlatformDataClient({
    baseUrl: api.url,
    credentials: { apiKey: KEY },
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    logger: quietLogger,
  });
  return { api, client };
}

export const quietLogger = pino({ level: 'silent' });

/**
 * The real time: the emulator stamps its records with it, and a search "as of now" must see
 * what was just deleted.
 */
export const realClock = { now: (): number => Date.now() };

/** A TraceDeletion reconciler on a memory cache and a switchable connection; ConfigMaps by `name/key`. */
export function traceDeletionRig(client: DeletionPlatformClient, configMaps: Record<string, string> = {}) {
  const kube = new MemoryKube<TraceDeletionObject, TraceDeletionStatus>();
  const connection = new SwitchableConnection(client);
  const reconciler = new TraceDeletionReconciler({
    kube,
    platformFor: connection.platformFor,
    configMapValue: (_namespace, name, key) => Promise.resolve(configMaps[`${name}/${key}`]),
    clock: realClock,
    timings: TIMINGS,
    logger: quietLogger,
  });
  return { kube, connection, reconciler };
}

/** An ExampleDeletion reconciler on a memory cache and a switchable connection. */
export function exampleDeletionRig(client: DeletionPlatformClient) {
  const kube = new MemoryKube<ExampleDeletionObject, ExampleDeletionStatus>();
  const connection = new SwitchableConnection(client);
  const reconciler = new ExampleDeletionReconciler({
    kube,
    platformFor: connection.platformFor,
    clock: realClock,
    timings: TIMINGS,
    logger: quietLogger,
  });
  return { kube, connection, reconciler };
}
