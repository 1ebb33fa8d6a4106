// OpenAPI v3 documents: the root index (/openapi/v3) and one document per group-version.
// Every resource gets paths whose PATCH declares the fieldValidation parameter, which is
// how kubectl decides that the server validates fields itself. Custom resources also get
// their schema (for `kubectl explain`); built-in kinds deliberately get none, so that
// kubectl computes strategic merge patches from its compiled-in types.
import { createHash } from 'node:crypto';
import type { JsonObject } from './kube-object.js';
import type { ResourceRegistry } from './registry.js';
import { apiVersionOf, type ResourceType } from './resource-type.js';

const OBJECT_META_REF = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const OBJECT_META_SCHEMA: JsonObject = {
  description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Name must be unique within a namespace.' },
    generateName: { type: 'string', description: 'An optional prefix used by the server to generate a unique name.' },
    namespace: { type: 'string', description: 'Namespace defines the space within which each name must be unique.' },
    uid: { type: 'string', description: 'UID is the unique in time and space value for this object.' },
    resourceVersion: { type: 'string', description: 'An opaque value that represents the internal version of this object.' },
    generation: { type: 'integer', format: 'int64', description: 'A sequence number representing a specific generation of the desired state.' },
    creationTimestamp: { type: 'string', format: 'date-time', description: 'When this object was created.' },
    deletionTimestamp: { type: 'string', format: 'date-time', description: 'When this object will be deleted.' },
    labels: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Map of string keys and values.' },
    annotations: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Unstructured key value map.' },
    finalizers: { type: 'array', items: { type: 'string', default: '' }, description: 'Must be empty before the object is deleted from the registry.' },
    ownerReferences: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, description: 'Objects depended by this object.' },
  },
};

function schemaName(type: ResourceType, version: string, suffix = ''): string {
  const prefix = type.group ? type.group.split('.').reverse().join('.') : 'io.k8s.api.core';
  return `${prefix}.${version}.${type.kind}${suffix}`;
}

function parameter(name: string, location: 'query' | 'path'): JsonObject {
  return { name, in: location, ...(location === 'path' ? { required: true } : {}), schema: { type: 'string', uniqueItems: true } };
}

function operation(type: ResourceType, version: string, action: string, parameters: string[]): JsonObject {
  return {
    description: `${action} ${type.kind}`,
    operationId: `${action}${type.kind}`,
    parameters: parameters.map((p) => parameter(p, 'query')),
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: type.group, version, kind: type.kind },
  };
}

function pathsFor(type: ResourceType, version: string): Record<string, JsonObject> {
  const root = type.group ? `/apis/${type.group}/${version}` : `/api/${version}`;
  const collection = type.namespaced ? `${root}/namespaces/{namespace}/${type.plural}` : `${root}/${type.plural}`;
  const pathParameters = type.namespaced ? [parameter('namespace', 'path')] : [];
  const writeParameters = ['dryRun', 'fieldManager', 'fieldValidation', 'pretty'];
  const paths: Record<string, JsonObject> = {
    [collection]: {
      get: operation(type, version, 'list', ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch']),
      post: operation(type, version, 'post', writeParameters),
      delete: operation(type, version, 'deletecollection', ['labelSelector', 'fieldSelector', 'dryRun']),
      parameters: pathParameters,
    },
    [`${collection}/{name}`]: {
      get: operation(type, version, 'get', ['pretty']),
      put: operation(type, version, 'put', writeParameters),
      patch: operation(type, version, 'patch', [...writeParameters, 'force']),
      delete: operation(type, version, 'delete', ['dryRun', 'gracePeriodSeconds', 'propagationPolicy']),
      parameters: [...pathParameters, parameter('name', 'path')],
    },
  };
  if (type.statusSubresource) {
    paths[`${collection}/{name}/status`] = {
      get: operation(type, version, 'get', ['pretty']),
      put: operation(type, version, 'put', writeParameters),
      patch: operation(type, version, 'patch', [...writeParameters, 'force']),
      parameters: [...pathParameters, parameter('name', 'path')],
    };
  }
  return paths;
}

function customResourceSchema(type: ResourceType, version: string, schema: JsonObject): JsonObject {
  const properties = { ...((schema['properties'] as JsonObject | undefined) ?? {}) };
  properties['apiVersion'] = {
    type: 'string',
    description:
      'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
  };
  properties['kind'] = {
    type: 'string',
    description: 'Kind is a string value representing the REST resource this object represents.',
  };
  properties['metadata'] = {
    description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    allOf: [{ $ref: OBJECT_META_REF }],
  };
  return {
    ...schema,
    type: 'object',
    properties,
    'x-kubernetes-group-version-kind': [{ group: type.group, kind: type.kind, version }],
  };
}

function groupVersionDocument(types: ResourceType[], group: string, version: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const schemas: Record<string, JsonObject> = { 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': OBJECT_META_SCHEMA };
  for (const type of types) {
    Object.assign(paths, pathsFor(type, version));
    const schema = type.custom?.schemas.get(version);
    if (schema) {
      schemas[schemaName(type, version)] = customResourceSchema(type, version, schema);
      schemas[schemaName(type, version, 'List')] = {
        type: 'object',
        description: `${type.kind}List is a list of ${type.kind}`,
        required: ['items'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          items: { type: 'array', items: { $ref: `#/components/schemas/${schemaName(type, version)}` } },
          metadata: { type: 'object' },
        },
        'x-kubernetes-group-version-kind': [{ group: type.group, kind: type.listKind, version }],
      };
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas },
    'x-emulator-api-version': apiVersionOf(group, version),
  };
}

/** Builds and caches the documents; rebuilt whenever the set of served resources changes. */
export class OpenApiDocuments {
  private builtFor = -1;
  private documents = new Map<string, { text: string; hash: string }>();

  constructor(private readonly registry: ResourceRegistry) {}

  private refresh(): void {
    if (this.builtFor === this.registry.generation) return;
    this.documents = new Map();
    for (const [group, versions] of this.registry.groups()) {
      for (const version of versions) {
        const key = group ? `apis/${group}/${version}` : `api/${version}`;
        const text = JSON.stringify(groupVersionDocument(this.registry.inGroupVersion(group, version), group, version));
        const hash = createHash('sha512').update(text).digest('hex').slice(0, 128).toUpperCase();
        this.documents.set(key, { text, hash });
      }
    }
    this.builtFor = this.registry.generation;
  }

  root(): JsonObject {
    this.refresh();
    const paths: Record<string, JsonObject> = {};
    for (const [key, { hash }] of this.documents) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    return { paths };
  }

  /** The document for "apis/<group>/<version>" or "api/v1", as JSON text. */
  document(key: string): string | undefined {
    this.refresh();
    return this.documents.get(key)?.text;
  }
}
