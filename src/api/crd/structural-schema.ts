// zod -> a Kubernetes structural OpenAPI v3 schema. zod's own JSON Schema export does the
// type translation (target openapi-3.0 gives `nullable` instead of anyOf-with-null); this
// module then turns it into what the API server requires of a CRD schema and refuses
// anything it cannot express, so that a zod construct without a structural equivalent fails
// the generator instead of producing a CRD that the API server rejects.
// Rules of a structural schema (Kubernetes "Specifying a structural schema"): every node has
// a `type` (or x-kubernetes-preserve-unknown-fields / x-kubernetes-int-or-string); no $ref;
// no anyOf/oneOf/allOf/not at the structural level; `properties` and `additionalProperties`
// never together.
import { z } from 'zod';

/** A node of an OpenAPI v3 schema as a CRD holds it. */
export interface JsonSchema {
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: { rule: string; message: string; fieldPath?: string }[];
}

/** Thrown when a schema cannot be made structural; names the path and the reason. */
export class NonStructuralSchemaError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path || '<root>'}: ${reason}`);
    this.name = 'NonStructuralSchemaError';
  }
}

/** Keywords that a structural schema must not use at all, or that this generator never emits. */
const FORBIDDEN_KEYWORDS = [
  '$ref',
  '$defs',
  'definitions',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'const',
  'propertyNames',
];
/** JSON-Schema bookkeeping zod adds that means nothing to the API server. */
const DROPPED_KEYWORDS = ['$schema', '$id', 'id', 'title', 'examples'];
/** Formats the API server validates itself, with its own clear message: zod's regex for them goes. */
const SELF_VALIDATED_FORMATS = new Set(['date-time', 'uuid']);

/** The key order of the emitted YAML: what a reader wants first, structure last. */
const KEY_ORDER: readonly (keyof JsonSchema)[] = [
  'description',
  'type',
  'format',
  'enum',
  'default',
  'nullable',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'items',
  'properties',
  'required',
  'additionalProperties',
  'x-kubernetes-validations',
];
const KNOWN_KEYS = new Set<string>(KEY_ORDER);

type RawNode = Record<string, unknown>;

function isRecord(value: unknown): value is RawNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normalize(raw: unknown, path: string): JsonSchema {
  if (!isRecord(raw)) throw new NonStructuralSchemaError(path, 'schema node is not an object');
  for (const keyword of FORBIDDEN_KEYWORDS) {
    if (keyword in raw) {
      throw new NonStructuralSchemaError(path, `uses "${keyword}", which a structural schema cannot express`);
    }
  }
  const node: RawNode = { ...raw };
  for (const keyword of DROPPED_KEYWORDS) delete node[keyword];

  // zod bounds every integer by the safe-integer range; the API server stores int64 anyway.
  if (node.type === 'integer') {
    if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
    if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  }
  if (typeof node.format === 'string' && SELF_VALIDATED_FORMATS.has(node.format)) delete node.pattern;

  // A record of unknown values (`additionalProperties: {}`) is a free-form object.
  if (isRecord(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0) {
    delete node.additionalProperties;
    node['x-kubernetes-preserve-unknown-fields'] = true;
  }
  // zod emits `additionalProperties: false` for strict objects; pruning already drops unknown fields.
  if (node.additionalProperties === false) delete node.additionalProperties;

  for (const key of Object.keys(node)) {
    if (!KNOWN_KEYS.has(key)) throw new NonStructuralSchemaError(path, `unexpected keyword "${key}"`);
  }

  const out: RawNode = {};
  for (const key of KEY_ORDER) {
    const value = node[key];
    if (value === undefined) continue;
    if (key === 'items') out.items = normalize(value, `${path}[]`);
    else if (key === 'additionalProperties') out.additionalProperties = normalize(value, `${path}{}`);
    else if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [
          name,
          normalize(child, path ? `${path}.${name}` : name),
        ]),
      );
    } else out[key] = value;
  }
  return out as JsonSchema;
}

/** Every problem that makes `schema` non-structural, as "path: reason" lines; empty when structural. */
export function structuralProblems(schema: JsonSchema, path = ''): string[] {
  const problems: string[] = [];
  const at = path || '<root>';
  const preserves = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  if (schema.type === undefined && !preserves && !intOrString) problems.push(`${at}: has no type`);
  if (schema.properties !== undefined && schema.additionalProperties !== undefined) {
    problems.push(`${at}: has both properties and additionalProperties`);
  }
  if (schema.type === 'array' && schema.items === undefined) problems.push(`${at}: array without items`);
  if (schema['x-kubernetes-list-type'] === 'map') {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const required = new Set(schema.items?.required ?? []);
    if (keys.length === 0) problems.push(`${at}: list-type map without list-map-keys`);
    for (const key of keys)
      if (!required.has(key)) problems.push(`${at}: list-map key "${key}" is not required`);
  }
  for (const keyword of FORBIDDEN_KEYWORDS) {
    if (keyword in schema) problems.push(`${at}: uses "${keyword}"`);
  }
  for (const name of schema.required ?? []) {
    if (schema.properties?.[name] === undefined)
      problems.push(`${at}: requires undeclared property "${name}"`);
  }
  if (schema.items) problems.push(...structuralProblems(schema.items, `${path}[]`));
  if (schema.additionalProperties)
    problems.push(...structuralProblems(schema.additionalProperties, `${path}{}`));
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    problems.push(...structuralProblems(child, path ? `${path}.${name}` : name));
  }
  return problems;
}

/**
 * The structural OpenAPI v3 schema of a zod schema, as the *input* of the API server sees it
 * (fields with a default are optional). Throws NonStructuralSchemaError when that is impossible.
 */
export function toStructuralSchema(schema: z.ZodType, rootPath = ''): JsonSchema {
  const raw = z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0', unrepresentable: 'throw' });
  const structural = normalize(raw, rootPath);
  const problems = structuralProblems(structural, rootPath);
  if (problems.length > 0) throw new NonStructuralSchemaError(rootPath, problems.join('; '));
  return structural;
}
