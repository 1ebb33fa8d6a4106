// The real server keeps one storage for events and serves it as core/v1 Event and as
// events.k8s.io/v1 Event. Storage here is the core/v1 shape; this maps the renamed fields.
import type { KubeObject } from './kube-object.js';
import type { VersionConverter } from './resource-type.js';

/** [events.k8s.io/v1 name, core/v1 name] for every field whose name differs. */
const RENAMED_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

function rename(object: KubeObject, from: 0 | 1, apiVersion: string): KubeObject {
  const to = from === 0 ? 1 : 0;
  const result: KubeObject = { ...object, apiVersion, kind: 'Event' };
  for (const pair of RENAMED_FIELDS) {
    const source = pair[from];
    if (source in result) {
      result[pair[to]] = result[source];
      delete result[source];
    }
  }
  return result;
}

export const eventsV1Converter: VersionConverter = {
  fromStorage: (stored) => rename(stored, 1, 'events.k8s.io/v1'),
  toStorage: (served) => rename(served, 0, 'v1'),
};

/** metav1.Time has whole seconds: `2026-01-02T03:04:05.123456Z` -> `2026-01-02T03:04:05Z`. */
function toTime(microTime: string): string {
  return microTime.replace(/\.\d+(?=Z|[+-]\d{2}:\d{2}$)/, '');
}

/**
 * The core/v1 view of an event written through events.k8s.io/v1 carries only `eventTime`
 * and `series`; kubectl sorts and describes events by `firstTimestamp`, `lastTimestamp` and
 * `count`. They are filled from the event's own times (the last observation of its series,
 * else its time) when the writer left them empty, so `kubectl get events
 * --sort-by=.lastTimestamp` and `kubectl describe` order them as they happened.
 */
export const coreEventsConverter: VersionConverter = {
  fromStorage: (stored) => {
    const eventTime = stored['eventTime'];
    if (typeof eventTime !== 'string' || eventTime === '') return stored;
    const series = stored['series'] as { count?: number; lastObservedTime?: string } | undefined;
    const filled: KubeObject = { ...stored };
    filled['firstTimestamp'] ??= toTime(eventTime);
    filled['lastTimestamp'] ??= toTime(series?.lastObservedTime ?? eventTime);
    filled['count'] ??= series?.count ?? 1;
    return filled;
  },
  toStorage: (served) => served,
};
