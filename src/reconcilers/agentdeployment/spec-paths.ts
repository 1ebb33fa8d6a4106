// Users write camelCase spec fields; the control plane speaks snake_case. Events and
// conditions name what the user wrote (`spec.sourceConfig.resourceSpec`), found by reading
// the one mapping table backwards, so the two names can never drift apart.
import { SOURCE_CONFIG_FIELDS, SOURCE_REVISION_CONFIG_FIELDS } from '../../api/agentdeployment/index.js';

type Table = Readonly<Record<string, string | { wire: string; fields: Readonly<Record<string, unknown>> }>>;

const TOP: Table = {
  name: 'name',
  source: 'source',
  secrets: 'secrets',
  sourceConfig: { wire: 'source_config', fields: SOURCE_CONFIG_FIELDS },
  sourceRevisionConfig: { wire: 'source_revision_config', fields: SOURCE_REVISION_CONFIG_FIELDS },
};

/** A segment of a wire path: a field name and the list indices after it (`init_containers[0]`). */
const SEGMENT = /^([^[\]]*)((?:\[\d+\])*)$/;

/**
 * `source_config.listener_config.cluster_namespace` → `spec.sourceConfig.listenerConfig.clusterNamespace`.
 * Indices stay where they are (`source_config.resource_spec.sidecars[1].volumeMounts` →
 * `spec.sourceConfig.resourceSpec.sidecars[1].volumeMounts`); below a Kubernetes-shaped
 * list the names are Kubernetes' own on both sides and pass unchanged. The `body.` that
 * validation errors put first names the request, not a field, and is dropped.
 */
export function specPathOf(wirePath: string): string {
  const names: string[] = ['spec'];
  let table: Table | undefined = TOP;
  const segments = wirePath.split('.');
  if (segments[0] === 'body' && segments.length > 1) segments.shift();
  for (const segment of segments) {
    const [, name = segment, indices = ''] = SEGMENT.exec(segment) ?? [];
    const entry: { camel: string; fields?: Table } | undefined =
      table === undefined ? undefined : findWire(table, name);
    names.push(`${entry?.camel ?? name}${indices}`);
    table = indices === '' ? entry?.fields : undefined;
  }
  return names.join('.');
}

/** A wire path in a control-plane message: one of the request's fields, then fields and indices. */
const WIRE_PATH =
  /(?:body\.)?(?:name|source|source_config|source_revision_config|secrets)(?:\.[a-zA-Z][a-zA-Z0-9_]*|\[\d+\])*/;
/** Where a message names a field: at its start or after `: ` / `; `, followed by `: ` (`field: rule`). */
const LOCATED = new RegExp(`(^|: |; )(${WIRE_PATH.source})(?=: )`, 'g');
/** The two top-level objects are never English words, so their paths are found anywhere. */
const NESTED =
  /(?<![\w.])(?:body\.)?(?:source_config|source_revision_config)(?:\.[a-zA-Z][a-zA-Z0-9_]*|\[\d+\])*/g;

/**
 * A control-plane message with every wire path it names rewritten as the spec path the user
 * wrote: `HTTP 400: source_config.resource_spec.min_scale: a minimum exceeds its maximum` →
 * `HTTP 400: spec.sourceConfig.resourceSpec.minScale: a minimum exceeds its maximum`. A bare
 * `name`, `source` or `secrets` is rewritten only where it stands as a location (before
 * `: `), so that the words of a rule ("a deployment of that name") stay words.
 */
export function withSpecPaths(message: string): string {
  return message
    .replace(LOCATED, (_, before: string, path: string) => `${before}${specPathOf(path)}`)
    .replace(NESTED, (path) => specPathOf(path));
}

function findWire(table: Table, wire: string): { camel: string; fields?: Table } | undefined {
  for (const [camel, mapped] of Object.entries(table)) {
    if (typeof mapped === 'string') {
      if (mapped === wire) return { camel };
    } else if (mapped.wire === wire) {
      return { camel, fields: mapped.fields as Table };
    }
  }
  return undefined;
}
