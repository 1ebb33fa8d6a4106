// Watch streams: newline-delimited JSON events (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR),
// resuming from a resourceVersion out of the bounded history (410 Expired as an ERROR
// event when it is gone, like the real watch cache), with selectors, bookmarks and timeouts.
import type { ServerResponse } from 'node:http';
import { expired } from '../api-error.js';
import type { ApiContext } from '../api-context.js';
import type { KubeObject } from '../kube-object.js';
import type { RequestOptions } from '../request-options.js';
import type { Change } from '../resource-store.js';
import { apiVersionOf, type ResourceType } from '../resource-type.js';
import type { ObjectPredicate } from '../selectors.js';
import { TableBuilder } from '../table.js';
import { selectionPredicate } from './reads.js';

export interface WatchSession {
  /** Ends the stream abruptly, as a dropped connection would. */
  drop(): void;
}

export interface WatchSettings {
  bookmarkIntervalMs: number;
  /** Set by the faults: answer with a 410 ERROR event instead of streaming. */
  forceExpired: boolean;
  /** Where a failure that cut the watch is logged. */
  report: (error: unknown) => void;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * The JSON of the object a watch sent last, for the next watch sending the same object: a
 * write reaches every watch of its resource in the same tick, one after the other (an
 * operator's informer, a dashboard, a test's own watch), and each encoded the whole object
 * again. One entry, not one per object: a string per stored object would double what the
 * emulator holds. Stored objects are replaced, never changed in place, so an object's JSON
 * stays its JSON.
 */
let lastEncoded: { object: KubeObject; json: string } | undefined;

function encoded(object: KubeObject): string {
  if (lastEncoded?.object === object) return lastEncoded.json;
  const json = JSON.stringify(object);
  lastEncoded = { object, json };
  return json;
}

/** Turns a stored change into what a watcher with this predicate sees, if anything. */
function visibleEvent(change: Change, predicate: ObjectPredicate | undefined, serve: (o: KubeObject) => KubeObject): { type: EventType; object: KubeObject } | undefined {
  const now = serve(change.object);
  if (!predicate) return { type: change.type, object: now };
  if (change.type === 'ADDED') return predicate(now) ? { type: 'ADDED', object: now } : undefined;
  if (change.type === 'DELETED') {
    return predicate(change.previous ? serve(change.previous) : now) ? { type: 'DELETED', object: now } : undefined;
  }
  const matchesNow = predicate(now);
  const before = change.previous ? serve(change.previous) : undefined;
  const matchedBefore = before !== undefined && predicate(before);
  if (matchesNow && matchedBefore) return { type: 'MODIFIED', object: now };
  if (matchesNow) return { type: 'ADDED', object: now };
  // Leaving the selection (a label changed): the real server's cacher sends the previous
  // object, which the watcher's selector still matches, stamped with the change's version.
  if (before !== undefined && matchedBefore) {
    return { type: 'DELETED', object: { ...before, metadata: { ...before.metadata, resourceVersion: now.metadata.resourceVersion } } };
  }
  return undefined;
}

export function startWatch(
  ctx: ApiContext,
  response: ServerResponse,
  type: ResourceType,
  version: string,
  namespace: string | undefined,
  name: string | undefined,
  options: RequestOptions,
  settings: WatchSettings,
  sessions: Set<WatchSession>,
): void {
  const predicate = selectionPredicate(type, options, name);
  const inNamespace = (o: KubeObject): boolean => !type.namespaced || !namespace || o.metadata.namespace === namespace;
  const serve = (o: KubeObject): KubeObject => ctx.toServed(type, version, o);
  const table = options.table ? new TableBuilder(type, version) : undefined;
  const apiVersion = apiVersionOf(type.group, version);

  response.writeHead(200, {
    'Content-Type': options.table ? `application/json;as=Table;v=${options.table.slice('meta.k8s.io/'.length)};g=meta.k8s.io` : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  response.flushHeaders();

  let firstTable = true;
  let corked = false;
  /** Writes one event line; `json` is the event's object, already encoded. */
  const writeLine = (eventType: string, json: string): void => {
    // After end() (a timeout) and before 'finish', a write would be an error event on the response.
    if (response.destroyed || response.writableEnded) return;
    // The events of one tick (a replay, a burst of writes) leave in one chunked write: one
    // syscall each was a fifth of the emulator's time while 1,000 objects were created at once.
    if (!corked) {
      corked = true;
      response.cork();
      process.nextTick(() => {
        corked = false;
        response.uncork();
      });
    }
    response.write(`{"type":${JSON.stringify(eventType)},"object":${json}}\n`);
  };
  const write = (eventType: string, object: unknown): void => writeLine(eventType, JSON.stringify(object));
  const send = (eventType: EventType, object: KubeObject): void => {
    if (!table) return writeLine(eventType, encoded(object));
    const rendered = table.table([object], options.includeObject, { resourceVersion: object.metadata.resourceVersion }, firstTable);
    rendered['apiVersion'] = options.table;
    firstTable = false;
    write(eventType, rendered);
  };
  const bookmark = (annotations?: Record<string, string>): void => {
    write('BOOKMARK', {
      kind: type.kind,
      apiVersion,
      metadata: { resourceVersion: String(ctx.store.currentRevision), ...(annotations ? { annotations } : {}) },
    });
  };

  const store = ctx.resourceStore(type);
  const requested = options.resourceVersion;
  const fromState = options.sendInitialEvents || requested === null || requested === '' || requested === '0';
  let replay: Change[] | undefined = [];
  if (settings.forceExpired) replay = undefined;
  else if (!fromState) replay = store.changesSince(Number(requested));
  if (replay === undefined) {
    write('ERROR', expired(`too old resource version: ${requested ?? ''} (${store.oldestKeptResourceVersion()})`).toStatus());
    response.end();
    return;
  }

  if (fromState) {
    const keys = type.namespaced && namespace ? store.keys(namespace) : store.keys();
    for (const key of keys) {
      const stored = store.get(key);
      if (!stored) continue;
      const served = serve(stored);
      if (!predicate || predicate(served)) send('ADDED', served);
    }
    if (options.sendInitialEvents && options.allowWatchBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
  }
  const deliver = (change: Change): void => {
    if (!inNamespace(change.object)) return;
    try {
      const event = visibleEvent(change, predicate, serve);
      if (event) send(event.type, event.object);
    } catch (error) {
      // This runs inside the write that changed the store: a failure here must cut this
      // watch (the client re-lists, as after any dropped watch), not fail a write that is
      // already stored.
      settings.report(error);
      response.destroy();
    }
  };
  for (const change of replay) deliver(change);
  const unsubscribe = store.subscribe(deliver);

  const timers: NodeJS.Timeout[] = [];
  if (options.allowWatchBookmarks) timers.push(setInterval(() => bookmark(), settings.bookmarkIntervalMs));
  if (options.timeoutSeconds !== undefined) timers.push(setTimeout(() => response.end(), options.timeoutSeconds * 1000));

  const session: WatchSession = { drop: () => response.destroy() };
  sessions.add(session);
  const cleanup = (): void => {
    unsubscribe();
    for (const timer of timers) clearInterval(timer);
    sessions.delete(session);
  };
  response.on('close', cleanup);
  response.on('finish', cleanup);
}
