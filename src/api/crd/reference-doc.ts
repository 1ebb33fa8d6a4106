// The field reference of docs/agentdeployment-reference.md, generated from the same schema
// as the CRD so that the documentation cannot drift from what the API server enforces.
// Only the part between the markers is generated; the prose around it is written by hand.
import { agentDeploymentOpenApiSchema } from './agentdeployment-crd.js';
import type { JsonSchema } from './structural-schema.js';

export const REFERENCE_DOC_PATH = 'docs/agentdeployment-reference.md';
export const BEGIN_MARKER =
  '<!-- BEGIN GENERATED FIELD REFERENCE: `agent-operator crds --write` rewrites this part -->';
export const END_MARKER = '<!-- END GENERATED FIELD REFERENCE -->';

function typeOf(schema: JsonSchema): string {
  let type: string;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.properties === undefined) {
    type = 'object (free-form)';
  } else if (schema.type === 'array') {
    type = `array of ${schema.items ? typeOf(schema.items) : 'any'}`;
  } else if (schema.type === 'object' && schema.additionalProperties) {
    type = `map of ${typeOf(schema.additionalProperties)}`;
  } else {
    type = schema.type ?? 'any';
  }
  return schema.nullable === true ? `${type} or null` : type;
}

function constraintsOf(schema: JsonSchema): string[] {
  const out: string[] = [];
  if (schema.enum) out.push(`one of ${schema.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  if (schema.format) out.push(`format ${schema.format}`);
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    out.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) out.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) out.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.minLength > 0) out.push(`non-empty`);
  if (schema.maxLength !== undefined) out.push(`at most ${schema.maxLength} characters`);
  if (schema.pattern !== undefined) out.push(`matches \`${schema.pattern}\``);
  if (schema.maxItems !== undefined) out.push(`at most ${schema.maxItems} items`);
  if (schema['x-kubernetes-list-type'] === 'map') {
    out.push(`unique by ${(schema['x-kubernetes-list-map-keys'] ?? []).map((k) => `\`${k}\``).join(', ')}`);
  }
  return out;
}

/** Escapes what would break a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

interface Row {
  path: string;
  schema: JsonSchema;
  required: boolean;
}

function collectRows(schema: JsonSchema, path: string, required: boolean, rows: Row[]): void {
  rows.push({ path, schema, required });
  const object = schema.type === 'array' ? schema.items : schema;
  const base = schema.type === 'array' ? `${path}[]` : path;
  if (!object) return;
  const requiredNames = new Set(object.required ?? []);
  for (const [name, child] of Object.entries(object.properties ?? {})) {
    collectRows(child, `${base}.${name}`, requiredNames.has(name), rows);
  }
}

interface RuleRow {
  path: string;
  message: string;
  transition: boolean;
}

function collectRules(schema: JsonSchema, path: string, rules: RuleRow[]): void {
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    rules.push({ path, message: rule.message, transition: rule.rule.includes('oldSelf') });
  }
  if (schema.items) collectRules(schema.items, `${path}[]`, rules);
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    collectRules(child, `${path}.${name}`, rules);
}

function fieldTable(root: JsonSchema, name: 'spec' | 'status'): string[] {
  const rows: Row[] = [];
  collectRows(root, name, false, rows);
  const lines = [
    '| Field | Type | Required / default | Constraints | Description |',
    '|---|---|---|---|---|',
  ];
  for (const { path, schema, required } of rows.slice(1)) {
    const presence =
      schema.default !== undefined
        ? `default \`${JSON.stringify(schema.default)}\``
        : required
          ? 'required'
          : '';
    lines.push(
      `| \`${path}\` | ${cell(typeOf(schema))} | ${presence} | ${cell(constraintsOf(schema).join('; '))} | ${cell(schema.description ?? '')} |`,
    );
  }
  return lines;
}

/** The generated Markdown between (and including) the markers. */
export function renderFieldReference(schema: JsonSchema = agentDeploymentOpenApiSchema()): string {
  const spec = schema.properties?.spec;
  const status = schema.properties?.status;
  if (!spec || !status) throw new Error('the schema has no spec or status');
  const rules: RuleRow[] = [];
  collectRules(spec, 'spec', rules);
  return [
    BEGIN_MARKER,
    '',
    '### spec',
    '',
    ...fieldTable(spec, 'spec'),
    '',
    '### Validation rules',
    '',
    'Besides the types and bounds above, the API server checks these CEL rules on create and update',
    '(rules marked "on update" compare with the stored object). The message is what `kubectl` prints.',
    '',
    '| Checked at | When | Message |',
    '|---|---|---|',
    ...rules.map((r) => `| \`${r.path}\` | ${r.transition ? 'on update' : 'always'} | ${cell(r.message)} |`),
    '',
    '### status',
    '',
    ...fieldTable(status, 'status'),
    '',
    END_MARKER,
  ].join('\n');
}

/** `document` with its generated part replaced; throws when the markers are missing. */
export function withFieldReference(
  document: string,
  generated = renderFieldReference(),
  path = REFERENCE_DOC_PATH,
): string {
  const begin = document.indexOf(BEGIN_MARKER);
  const end = document.indexOf(END_MARKER);
  if (begin < 0 || end < begin) {
    throw new Error(`${path}: the markers of the generated field reference are missing`);
  }
  return document.slice(0, begin) + generated + document.slice(end + END_MARKER.length);
}
