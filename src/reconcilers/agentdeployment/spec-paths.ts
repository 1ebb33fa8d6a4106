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

/** `source_config.listener_config.cluster_namespace` → `spec.sourceConfig.listenerConfig.clusterNamespace`. */
export function specPathOf(wirePath: string): string {
  const names: string[] = ['spec'];
  let table: Table | undefined = TOP;
  for (const segment of wirePath.split('.')) {
    const entry: { camel: string; fields?: Table } | undefined =
      table === undefined ? undefined : findWire(table, segment);
    names.push(entry?.camel ?? segment);
    table = entry?.fields;
  }
  return names.join('.');
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
