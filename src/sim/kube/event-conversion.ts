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
