// A scripted API server for one resource type, in memory: enough of list/watch semantics
// (resourceVersions, paging, history and 410) to drive a reflector through every failure.
import { KubeApiError } from '../../../src/runtime/kube/errors.js';
import {
  objectKey,
  type KubeObject,
  type ObjectList,
  type WatchEvent,
} from '../../../src/runtime/kube/objects.js';
import type {
  ListPageRequest,
  ListWatchSource,
  WatchRequest,
} from '../../../src/runtime/reflector/list-watch.js';
import { Channel } from './channel.js';

interface Recorded {
  rv: number;
  event: WatchEvent;
}

interface Watcher {
  from: number;
  channel: Channel<WatchEvent>;
  stalled: boolean;
}

export class FakeApi implements ListWatchSource {
  readonly description = 'fake widgets';
  private rv = 1;
  private readonly objects = new Map<string, KubeObject>();
  private history: Recorded[] = [];
  private oldestKept = 1;
  private watchers: Watcher[] = [];

  listCalls = 0;
  watchCalls: WatchRequest[] = [];
  listFailures: unknown[] = [];
  watchFailures: unknown[] = [];
  /** Watches opened while true never deliver anything (a half-open connection). */
  stallNewWatches = false;
  /** The next N watches answer an ERROR event with code 410 instead of an HTTP error. */
  expireAsEvent = 0;

  upsert(name: string, spec: Record<string, unknown> = {}): KubeObject {
    this.rv += 1;
    const existing = this.objects.get(name);
    const object: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {
        name,
        namespace: 'default',
        resourceVersion: String(this.rv),
        uid: existing?.metadata.uid ?? `uid-${name}`,
      },
      spec,
    };
    this.objects.set(name, object);
    this.record({ type: existing ? 'MODIFIED' : 'ADDED', object });
    return object;
  }

  remove(name: string): void {
    const existing = this.objects.get(name);
    if (!existing) return;
    this.rv += 1;
    this.objects.delete(name);
    this.record({
      type: 'DELETED',
      object: { ...existing, metadata: { ...existing.metadata, resourceVersion: String(this.rv) } },
    });
  }

  /** Forgets the history, so watches from any earlier version answer 410. */
  compact(): void {
    this.history = [];
    this.oldestKept = this.rv + 1;
  }

  /** Sends a bookmark with the current version to every open watch. */
  bookmark(): void {
    const event: WatchEvent = {
      type: 'BOOKMARK',
      object: { metadata: { resourceVersion: String(this.rv) } },
    };
    for (const w of this.watchers) if (!w.stalled) w.channel.push(event);
  }

  /** Breaks every open watch, as a dropped connection would. */
  dropWatches(): void {
    for (const w of this.watchers) w.channel.fail(new KubeApiError(0, 'NetworkError', 'watch stream broken'));
    this.watchers = [];
  }

  /** Ends every open watch cleanly, as a server-side timeout would. */
  endWatches(): void {
    for (const w of this.watchers) w.channel.end();
    this.watchers = [];
  }

  get openWatches(): number {
    return this.watchers.filter((w) => !w.channel.isClosed).length;
  }

  snapshot(): Map<string, string> {
    return new Map([...this.objects.values()].map((o) => [objectKey(o), o.metadata.resourceVersion ?? '']));
  }

  list(request: ListPageRequest): Promise<ObjectList> {
    this.listCalls += 1;
    const failure = this.listFailures.shift();
    if (failure !== undefined) return Promise.reject(failure);
    const all = [...this.objects.values()].sort((a, b) =>
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    );
    const [offsetText, rvText] = (request.continue ?? `0:${this.rv}`).split(':');
    const offset = Number(offsetText);
    const items = all.slice(offset, offset + request.limit);
    const more = offset + request.limit < all.length;
    return Promise.resolve({
      items,
      resourceVersion: rvText ?? String(this.rv),
      ...(more ? { continue: `${offset + request.limit}:${rvText}` } : {}),
    });
  }

  watch(request: WatchRequest): Promise<AsyncIterable<WatchEvent>> {
    this.watchCalls.push(request);
    const failure = this.watchFailures.shift();
    if (failure !== undefined) return Promise.reject(failure);
    const from = Number(request.resourceVersion);
    const channel = new Channel<WatchEvent>(request.signal);
    if (this.expireAsEvent > 0) {
      this.expireAsEvent -= 1;
      channel.push({
        type: 'ERROR',
        status: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' },
      });
      channel.end();
      return Promise.resolve(channel);
    }
    if (from < this.oldestKept - 1) {
      return Promise.reject(new KubeApiError(410, 'Expired', `too old resource version: ${from}`));
    }
    const watcher: Watcher = { from, channel, stalled: this.stallNewWatches };
    if (!watcher.stalled) for (const r of this.history) if (r.rv > from) channel.push(r.event);
    this.watchers.push(watcher);
    return Promise.resolve(channel);
  }

  private record(event: WatchEvent): void {
    this.history.push({ rv: this.rv, event });
    for (const w of this.watchers) if (!w.stalled) w.channel.push(event);
  }
}
