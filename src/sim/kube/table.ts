// The meta.k8s.io/v1 Table format `kubectl get` asks for. Columns: Name, then the CRD's
// additionalPrinterColumns (or Age when it declares none, as the real server defaults);
// built-in kinds get their few columns and Age. Dates become ages like "5m" server-side.
import { evaluateJsonPath, parseJsonPath, type CompiledJsonPath } from './jsonpath.js';
import type { KubeObject } from './kube-object.js';
import type { PrinterColumn, ResourceType } from './resource-type.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

const NAME_COLUMN: ColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};

const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
};

/** duration.HumanDuration from k8s.io/apimachinery, which kubectl users know by heart. */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const years = Math.floor(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${years}y`;
}

function cellFor(column: PrinterColumn, values: unknown[], now: number): unknown {
  const value = values[0];
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case 'string':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const time = Date.parse(value);
      return Number.isNaN(time) ? '<invalid>' : humanDuration(now - time);
    }
    default:
      return null;
  }
}

export class TableBuilder {
  private readonly columns: Array<{ definition: PrinterColumn; path: CompiledJsonPath | undefined }>;

  constructor(type: ResourceType, version: string) {
    const declared = type.printerColumns(version);
    const columns = type.custom ? (declared.length > 0 ? declared : [AGE_COLUMN]) : [...declared, AGE_COLUMN];
    this.columns = columns.map((definition) => {
      let path: CompiledJsonPath | undefined;
      try {
        path = parseJsonPath(definition.jsonPath);
      } catch {
        path = undefined; // an unparsable column prints <none>, it does not break the listing
      }
      return { definition, path };
    });
  }

  columnDefinitions(): ColumnDefinition[] {
    return [
      NAME_COLUMN,
      ...this.columns.map(({ definition }) => ({
        name: definition.name,
        type: definition.type === 'date' ? 'date' : definition.type,
        format: definition.format ?? '',
        description: definition.description ?? '',
        priority: definition.priority ?? 0,
      })),
    ];
  }

  row(object: KubeObject, includeObject: IncludeObject, now: number): Record<string, unknown> {
    const cells = [
      object.metadata.name ?? '',
      ...this.columns.map(({ definition, path }) => (path ? cellFor(definition, evaluateJsonPath(object, path), now) : null)),
    ];
    const row: Record<string, unknown> = { cells };
    if (includeObject === 'Object') row['object'] = object;
    else if (includeObject === 'Metadata') {
      row['object'] = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
    }
    return row;
  }

  table(
    objects: KubeObject[],
    includeObject: IncludeObject,
    listMeta: Record<string, unknown>,
    withColumns = true,
  ): Record<string, unknown> {
    const now = Date.now();
    const table: Record<string, unknown> = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta };
    if (withColumns) table['columnDefinitions'] = this.columnDefinitions();
    table['rows'] = objects.map((o) => this.row(o, includeObject, now));
    return table;
  }
}
