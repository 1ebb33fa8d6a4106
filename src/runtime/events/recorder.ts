// Kubernetes Events for the objects a controller manages, aggregated like client-go's
// recorder: the same (object, type, reason, message) seen again within the aggregation
// window updates one Event's count instead of creating another, so a reconcile that keeps
// failing the same way leaves one Event with a growing count, not thousands.
// Messages are the caller's text and must never carry secret values.
//
// Callers do not wait for an Event (a pass records one and goes on), so a burst of passes
// (10,000 objects adopted at once) would otherwise have thousands of Event writes in flight,
// each with its own connection to the API server. As client-go's broadcaster queues Events and
// writes them from one goroutine, at most `maxInFlight` are written at once here, the others
// wait, and past `maxQueued` waiting an Event is dropped (logged at debug), as client-go drops
// when its queue is full: an Event is a note for people, not state.
//
// The queue is shared by every team's objects, so it is fair across namespaces: waiting
// Events are written namespace by namespace in turn (oldest first within one), and when the
// queue is full the namespace holding the most waiting Events loses its newest, not the
// newcomer from a quieter namespace. A tenant whose thousand objects fail at once fills the
// queue with its own notes and still cannot silence another team's.
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import type { KubeClient } from '../kube/client.js';
import { isNotFound } from '../kube/errors.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource.js';
import { formatMicroTime } from '../leaderelection/micro-time.js';

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export type EventType = 'Normal' | 'Warning';

export type EventsApi = 'events.k8s.io/v1' | 'v1';

export interface EventRecorderOptions {
  client: KubeClient;
  /** reportingController / source.component, e.g. "agent-operator". */
  component: string;
  /** reportingInstance / source.host, e.g. the pod name. */
  instance: string;
  /** Which Event API to write (default events.k8s.io/v1). */
  api?: EventsApi;
  /** Repeats within this window are counted on one Event (default 10 min, client-go's). */
  aggregationWindowMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Event writes at once (default 8). */
  maxInFlight?: number;
  /** Events waiting for a write, beyond which new ones are dropped (default 1,000). */
  maxQueued?: number;
}

const EVENTS_V1: ResourceType = { group: 'events.k8s.io', version: 'v1', plural: 'events' };
const CORE_EVENTS: ResourceType = { group: '', version: 'v1', plural: 'events' };
const MAX_NOTE_BYTES = 1024;
const MAX_REASON_CHARS = 128;
const MAX_REMEMBERED = 4096;
/** Event writes at once: with API server answers of 2-5 ms, 1,600-4,000 Events a second. */
const DEFAULT_MAX_IN_FLIGHT = 8;
/** Events waiting to be written (client-go's queue holds 1,000). */
const DEFAULT_MAX_QUEUED = 1_000;

interface Series {
  name: string;
  namespace: string;
  count: number;
  lastSeen: number;
}

export function referenceTo(object: KubeObject): ObjectReference {
  return {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    name: object.metadata.name ?? '',
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    ...(object.metadata.uid ? { uid: object.metadata.uid } : {}),
    ...(object.metadata.resourceVersion ? { resourceVersion: object.metadata.resourceVersion } : {}),
  };
}

function truncate(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let cut = text.slice(0, maxBytes - 3);
  while (Buffer.byteLength(cut) > maxBytes - 3) cut = cut.slice(0, -1);
  return `${cut}...`;
}

export class EventRecorder {
  private readonly client: KubeClient;
  private readonly component: string;
  private readonly instance: string;
  private readonly api: EventsApi;
  private readonly windowMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  /** Insertion-ordered so the oldest series can be forgotten first. */
  private readonly series = new Map<string, Series>();
  private readonly maxInFlight: number;
  private readonly maxQueued: number;
  private inFlight = 0;
  /**
   * Records waiting for a write slot, by namespace, oldest first: each is handed the slot of a
   * finished write (true), or told it was dropped to make room (false).
   */
  private readonly waiting = new Map<string, Array<(granted: boolean) => void>>();
  /** Namespaces with records waiting, in the order they are served next. */
  private readonly turns: string[] = [];
  private waitingCount = 0;

  constructor(options: EventRecorderOptions) {
    this.client = options.client;
    this.component = options.component;
    this.instance = options.instance;
    this.api = options.api ?? 'events.k8s.io/v1';
    this.windowMs = options.aggregationWindowMs ?? 600_000;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
  }

  /**
   * Records an event; never rejects (a lost event must not fail a reconcile). Resolves once it
   * is written, or at once when the queue is full and it is dropped.
   */
  async record(
    regarding: ObjectReference,
    type: EventType,
    reason: string,
    message: string,
    action = reason,
  ): Promise<void> {
    // Stamped now, as client-go stamps an Event when it is recorded: one that waits for a write
    // slot still says when it happened.
    const recordedAt = this.clock.now();
    if (this.inFlight < this.maxInFlight) {
      this.inFlight += 1;
    } else if (!(await this.slotFor(regarding.namespace ?? ''))) {
      this.logger?.debug(
        { regarding: `${regarding.kind} ${regarding.namespace ?? ''}/${regarding.name}`, reason },
        'event dropped: too many events waiting to be written',
      );
      return;
    }
    try {
      await this.write(regarding, type, reason, message, action, recordedAt);
    } finally {
      this.release();
    }
  }

  /**
   * Waits for the slot of a finished write (inFlight stays counted: release hands it over);
   * false when the record is dropped, at once or later to make room for a quieter namespace.
   */
  private slotFor(namespace: string): Promise<boolean> {
    if (this.waitingCount >= this.maxQueued && !this.makeRoomFor(namespace)) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let queue = this.waiting.get(namespace);
      if (queue === undefined) {
        queue = [];
        this.waiting.set(namespace, queue);
        this.turns.push(namespace);
      }
      queue.push(resolve);
      this.waitingCount += 1;
    });
  }

  /**
   * The queue is full: drops the newest record of the namespace holding the most, if that
   * namespace holds more than `namespace` would with one more. False: the newcomer's own
   * namespace is (one of) the largest, and the newcomer is the one dropped.
   */
  private makeRoomFor(namespace: string): boolean {
    let largest: string | undefined;
    let largestCount = 0;
    for (const [name, queue] of this.waiting) {
      if (queue.length > largestCount) [largest, largestCount] = [name, queue.length];
    }
    const own = this.waiting.get(namespace)?.length ?? 0;
    if (largest === undefined || largestCount <= own + 1) return false;
    this.take(largest, 'newest')?.(false);
    return true;
  }

  /** A write finished: its slot goes to the oldest waiting record of the next namespace in turn, or is freed. */
  private release(): void {
    const namespace = this.turns[0];
    const next = namespace === undefined ? undefined : this.take(namespace, 'oldest');
    if (next) next(true);
    else this.inFlight -= 1;
  }

  /**
   * Removes the oldest waiting record of the namespace whose turn it is (the first of `turns`,
   * which then goes to the back), or the newest of any namespace (dropped to make room).
   */
  private take(namespace: string, which: 'oldest' | 'newest'): ((granted: boolean) => void) | undefined {
    const queue = this.waiting.get(namespace);
    const taken = which === 'oldest' ? queue?.shift() : queue?.pop();
    if (queue === undefined || taken === undefined) return undefined;
    this.waitingCount -= 1;
    if (queue.length === 0) {
      this.waiting.delete(namespace);
      this.turns.splice(which === 'oldest' ? 0 : this.turns.indexOf(namespace), 1);
    } else if (which === 'oldest') {
      this.turns.push(this.turns.shift() ?? namespace);
    }
    return taken;
  }

  private async write(
    regarding: ObjectReference,
    type: EventType,
    reason: string,
    message: string,
    action: string,
    now: number,
  ): Promise<void> {
    const note = truncate(message, MAX_NOTE_BYTES);
    const shortReason = reason.slice(0, MAX_REASON_CHARS);
    const namespace = regarding.namespace ?? 'default';
    // A digest, not the text: the key is kept for every recent series, and a note can be 1 KiB.
    const key = createHash('sha256')
      .update(
        JSON.stringify([
          regarding.uid ?? '',
          regarding.kind,
          namespace,
          regarding.name,
          type,
          shortReason,
          note,
        ]),
      )
      .digest('base64');
    const known = this.series.get(key);
    try {
      if (known && now - known.lastSeen < this.windowMs) {
        known.count += 1;
        known.lastSeen = now;
        this.series.delete(key);
        this.series.set(key, known);
        try {
          await this.client.mergePatch(
            this.type(),
            known.namespace,
            known.name,
            this.repeatPatch(known.count, now),
          );
          return;
        } catch (error) {
          // The Event was garbage-collected (TTL) meanwhile: start a new one.
          if (!isNotFound(error)) throw error;
        }
      }
      const name = `${regarding.name}.${randomBytes(8).toString('hex')}`;
      await this.client.create(
        this.type(),
        this.newEvent(name, namespace, regarding, type, shortReason, note, action, now),
      );
      this.remember(key, { name, namespace, count: 1, lastSeen: now });
    } catch (error) {
      this.logger?.warn(
        {
          regarding: `${regarding.kind} ${namespace}/${regarding.name}`,
          reason: shortReason,
          error: error instanceof Error ? error.message : String(error),
        },
        'could not record event',
      );
    }
  }

  private type(): ResourceType {
    return this.api === 'v1' ? CORE_EVENTS : EVENTS_V1;
  }

  private remember(key: string, series: Series): void {
    this.series.set(key, series);
    if (this.series.size > MAX_REMEMBERED) {
      const oldest = this.series.keys().next();
      if (!oldest.done) this.series.delete(oldest.value);
    }
    // A series seen last outside the window can only start a new Event: forget it. The map
    // is in order of last sighting (a repeat moves its series to the end), so the expired
    // ones are at the front.
    for (const [oldKey, old] of this.series) {
      if (series.lastSeen - old.lastSeen < this.windowMs) break;
      this.series.delete(oldKey);
    }
  }

  private repeatPatch(count: number, now: number): Record<string, unknown> {
    if (this.api === 'v1')
      return { count, lastTimestamp: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z') };
    return { series: { count, lastObservedTime: formatMicroTime(now) } };
  }

  private newEvent(
    name: string,
    namespace: string,
    regarding: ObjectReference,
    type: EventType,
    reason: string,
    note: string,
    action: string,
    now: number,
  ): KubeObject {
    if (this.api === 'v1') {
      const seconds = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: regarding,
        reason,
        message: note,
        type,
        count: 1,
        firstTimestamp: seconds,
        lastTimestamp: seconds,
        source: { component: this.component, host: this.instance },
        reportingComponent: this.component,
        reportingInstance: this.instance,
      };
    }
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: formatMicroTime(now),
      reportingController: this.component,
      reportingInstance: this.instance,
      action: action.slice(0, MAX_REASON_CHARS),
      reason,
      note,
      type,
      regarding,
    };
  }
}
