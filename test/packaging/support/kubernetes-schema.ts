// Validates rendered manifests against the Kubernetes API's own schemas, two ways:
// - kubernetes-models (JSON Schema compiled from the Kubernetes OpenAPI): types, required
//   fields, enums and formats;
// - the OpenAPI type map that @kubernetes/client-node is generated from: every field must
//   exist in its type, which is what a real API server's strict field validation rejects
//   and what JSON Schema without additionalProperties=false lets through (a typo such as
//   `readOnlyRootFileSystem` would otherwise be silently dropped).
import * as kubernetesClient from '@kubernetes/client-node';
import type { Manifest } from './helm.js';

interface AttributeType {
  baseName: string;
  type: string;
}

interface GeneratedModel {
  getAttributeTypeMap(): AttributeType[];
}

interface ValidatingModel {
  validate(): void;
}

type ModelConstructor = new (data: unknown) => ValidatingModel;

function isGeneratedModel(value: unknown): value is GeneratedModel {
  return (
    typeof value === 'function' &&
    typeof (value as { getAttributeTypeMap?: unknown }).getAttributeTypeMap === 'function'
  );
}

const clientModels = kubernetesClient as unknown as Record<string, unknown>;

/** client-node names its generated types after the OpenAPI definitions: V1Deployment, V1beta1... */
function clientTypeName(apiVersion: string, kind: string): string {
  const version = apiVersion.includes('/') ? (apiVersion.split('/')[1] ?? '') : apiVersion;
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
}

const OPAQUE_TYPES = new Set([
  'any',
  'object',
  'string',
  'number',
  'boolean',
  'Date',
  'IntOrString',
  'RuntimeRawExtension',
]);

function unknownFields(value: unknown, typeName: string, path: string, problems: string[]): void {
  if (value === null || value === undefined || OPAQUE_TYPES.has(typeName)) return;
  const arrayMatch = /^Array<(.+)>$/.exec(typeName);
  if (arrayMatch?.[1]) {
    if (Array.isArray(value))
      value.forEach((item, i) => unknownFields(item, arrayMatch[1] ?? '', `${path}[${i}]`, problems));
    return;
  }
  const mapMatch = /^\{ \[key: string\]: (.+); \}$/.exec(typeName);
  if (mapMatch?.[1]) {
    if (typeof value === 'object') {
      for (const [key, item] of Object.entries(value))
        unknownFields(item, mapMatch[1], `${path}.${key}`, problems);
    }
    return;
  }
  const model = clientModels[typeName];
  if (!isGeneratedModel(model) || typeof value !== 'object' || Array.isArray(value)) return;
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  // JSONSchemaProps (CRD schemas) are recursive and free-form in places; their own validator checks them.
  if (typeName === 'V1JSONSchemaProps') return;
  for (const [key, item] of Object.entries(value)) {
    const fieldType = attributes.get(key);
    if (fieldType === undefined) {
      problems.push(`${path}.${key}: unknown field (not in ${typeName})`);
      continue;
    }
    unknownFields(item, fieldType, `${path}.${key}`, problems);
  }
}

async function loadSchemaModel(apiVersion: string, kind: string): Promise<ModelConstructor | undefined> {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const modulePath = `kubernetes-models/${group ? `${group}/` : ''}${version}/${kind}`;
  try {
    const loaded = (await import(modulePath)) as Record<string, unknown>;
    const model = loaded[kind];
    return typeof model === 'function' ? (model as ModelConstructor) : undefined;
  } catch {
    return undefined;
  }
}

export interface ValidationOutcome {
  /** False when neither schema source knows the kind (custom resources). */
  known: boolean;
  problems: string[];
}

/** Validates one built-in Kubernetes object; custom kinds report known=false. */
export async function validateAgainstKubernetesSchemas(manifest: Manifest): Promise<ValidationOutcome> {
  const where = `${manifest.kind}/${manifest.metadata.name}`;
  const problems: string[] = [];
  const SchemaModel = await loadSchemaModel(manifest.apiVersion, manifest.kind);
  const clientType = clientTypeName(manifest.apiVersion, manifest.kind);
  const clientKnows = isGeneratedModel(clientModels[clientType]);
  if (!SchemaModel && !clientKnows) return { known: false, problems };
  if (SchemaModel) {
    try {
      new SchemaModel(manifest).validate();
    } catch (error: unknown) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (clientKnows) unknownFields(manifest, clientType, where, problems);
  return { known: true, problems };
}
