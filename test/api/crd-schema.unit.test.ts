// The generated CRD: structural by the API server's rules, with the bounds, defaults, list
// keys and free-form nodes the contract asks for, descriptions for `kubectl explain`, and
// accepted by the Kubernetes emulator's CRD schema validation.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentDeploymentCrd, agentDeploymentOpenApiSchema } from '../../src/api/crd/agentdeployment-crd.js';
import {
  type JsonSchema,
  NonStructuralSchemaError,
  structuralProblems,
  toStructuralSchema,
} from '../../src/api/crd/structural-schema.js';
import { validateCrdSchema, type JSONSchemaProps } from '../../src/sim/kube/validation/index.js';

const root = agentDeploymentOpenApiSchema();

function at(path: string): JsonSchema {
  let node: JsonSchema | undefined = root;
  for (const step of path.split('.')) {
    node = step === '[]' ? node?.items : node?.properties?.[step];
    if (!node) throw new Error(`no schema node at ${path}`);
  }
  return node;
}

interface Visit {
  path: string;
  node: JsonSchema;
  isProperty: boolean;
}

function walk(node: JsonSchema, path: string, visits: Visit[] = [], isProperty = false): Visit[] {
  visits.push({ path, node, isProperty });
  if (node.items) walk(node.items, `${path}[]`, visits);
  if (node.additionalProperties) walk(node.additionalProperties, `${path}{}`, visits);
  for (const [name, child] of Object.entries(node.properties ?? {}))
    walk(child, `${path}.${name}`, visits, true);
  return visits;
}

const visits = walk(root, '');
const specVisits = visits.filter((v) => v.path.startsWith('.spec'));

describe('structural schema', () => {
  it('every node has a type, or is free-form by x-kubernetes-preserve-unknown-fields', () => {
    const untyped = visits.filter(
      ({ node }) => node.type === undefined && node['x-kubernetes-preserve-unknown-fields'] !== true,
    );
    expect(untyped.map((v) => v.path)).toEqual([]);
    expect(structuralProblems(root)).toEqual([]);
  });

  it('has no $ref, anyOf, oneOf, allOf or not anywhere', () => {
    expect(JSON.stringify(root)).not.toMatch(
      /"(\$ref|anyOf|oneOf|allOf|not|\$defs|additionalProperties":false)"/,
    );
  });

  it('is accepted by the Kubernetes emulator CRD schema validation', () => {
    expect(validateCrdSchema(root as unknown as JSONSchemaProps)).toEqual([]);
  });

  it('has a description for every field, for kubectl explain', () => {
    const missing = specVisits.concat(visits.filter((v) => v.path.startsWith('.status')));
    expect(missing.filter((v) => v.isProperty && !v.node.description).map((v) => v.path)).toEqual([]);
  });

  it('bounds every list and every string of spec, keeping CEL cost estimates finite', () => {
    const unboundedLists = specVisits.filter(
      ({ node }) => node.type === 'array' && node.maxItems === undefined,
    );
    expect(unboundedLists.map((v) => v.path)).toEqual([]);
    const unboundedStrings = specVisits.filter(
      ({ path, node }) =>
        node.type === 'string' &&
        node.maxLength === undefined &&
        node.enum === undefined &&
        node.format !== 'uuid' &&
        // map values (labels, quantities) are never read by a rule
        !path.endsWith('{}'),
    );
    expect(unboundedStrings.map((v) => v.path)).toEqual([]);
  });

  it('keeps the worst case of the nested volume-mount rule far below the per-call CEL cost limit', () => {
    const containers = at('spec.sourceConfig.resourceSpec.sidecars').maxItems ?? Infinity;
    const mounts = at('spec.sourceConfig.resourceSpec.sidecars.[].volumeMounts').maxItems ?? Infinity;
    const volumes = at('spec.sourceConfig.resourceSpec.volumes').maxItems ?? Infinity;
    const nameLength = at('spec.sourceConfig.resourceSpec.volumes.[].name').maxLength ?? Infinity;
    // Each comparison of two names costs about 1 + length/10 in the Kubernetes cost model.
    const estimate = containers * mounts * volumes * (2 + Math.ceil(nameLength / 10));
    expect(estimate).toBeLessThan(1_000_000);
  });

  it('marks free-form Kubernetes objects to keep unknown fields', () => {
    for (const path of [
      'spec.sourceConfig.resourceSpec.volumes.[].configMap',
      'spec.sourceConfig.resourceSpec.volumes.[].csi',
      'spec.sourceConfig.resourceSpec.sidecars.[].securityContext',
      'spec.sourceConfig.resourceSpec.sidecars.[].envFrom.[]',
      'spec.sourceConfig.resourceSpec.initContainers.[].env.[].valueFrom',
    ]) {
      expect(at(path), path).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
      expect(at(path).additionalProperties, path).toBeUndefined();
    }
  });

  it('declares string maps with additionalProperties', () => {
    for (const path of [
      'spec.sourceConfig.resourceSpec.labels',
      'spec.sourceConfig.resourceSpec.annotations',
      'spec.sourceConfig.resourceSpec.sidecars.[].resources.limits',
    ]) {
      expect(at(path), path).toEqual(
        expect.objectContaining({ type: 'object', additionalProperties: { type: 'string' } }),
      );
    }
  });

  it.each([
    ['cpu', 0.1, 8],
    ['queueCpu', 0.1, 8],
    ['cacheCpu', 0.1, 8],
    ['cpuLimit', 0.1, 16],
    ['queueCpuLimit', 0.1, 16],
    ['cacheCpuLimit', 0.1, 16],
  ])('bounds resourceSpec.%s to %s..%s cores', (field, minimum, maximum) => {
    expect(at(`spec.sourceConfig.resourceSpec.${field}`)).toMatchObject({ type: 'number', minimum, maximum });
  });

  it('declares integers without the safe-integer bounds zod adds', () => {
    expect(at('spec.sourceConfig.resourceSpec.minScale')).toEqual({
      description: 'Minimum number of replicas.',
      type: 'integer',
      minimum: 0,
    });
  });

  it('carries the defaults and enums of the contract', () => {
    expect(at('spec.deletionPolicy')).toMatchObject({
      type: 'string',
      enum: ['Delete', 'Orphan'],
      default: 'Delete',
    });
    expect(at('spec.suspend')).toMatchObject({ type: 'boolean', default: false });
    expect(at('spec.adoptExisting')).toMatchObject({ type: 'boolean', default: false });
    expect(at('spec.source').enum).toEqual(['repo_host', 'external_container', 'internal_container']);
    expect(at('spec.sourceConfig.deploymentType').enum).toEqual(['dev_free', 'dev', 'prod']);
    expect(at('spec.sourceConfig.resourceSpec.sidecars.[].imagePullPolicy').enum).toEqual([
      'Always',
      'Never',
      'IfNotPresent',
    ]);
    expect(at('spec.sourceConfig.resourceSpec.sidecars.[].restartPolicy').enum).toEqual([
      'Always',
      'OnFailure',
    ]);
    expect(at('status.conditions.[].status').enum).toEqual(['True', 'False', 'Unknown']);
    expect(root.required).toEqual(['spec']);
    expect(at('spec').required).toEqual(['source']);
  });

  it.each([
    ['spec.secrets', ['name']],
    ['spec.sourceConfig.resourceSpec.volumes', ['name']],
    ['spec.sourceConfig.resourceSpec.initContainers', ['name']],
    ['spec.sourceConfig.resourceSpec.sidecars', ['name']],
    ['spec.sourceConfig.resourceSpec.imagePullSecrets', ['name']],
    ['spec.sourceConfig.resourceSpec.volumeMounts', ['mountPath']],
    ['status.conditions', ['type']],
  ])('%s is a list-type map keyed by %j', (path, keys) => {
    expect(at(path)).toMatchObject({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys });
  });

  it('makes only status fields mirroring nullable wire values nullable', () => {
    const nullable = visits.filter((v) => v.node.nullable === true).map((v) => v.path);
    expect(nullable.sort()).toEqual(
      [
        '.status.activeRevisionId',
        '.status.customUrl',
        '.status.latestRevisionId',
        '.status.latestRevisionStatus',
      ].sort(),
    );
  });

  it('lets the API server check uuid and date-time formats itself', () => {
    expect(at('spec.sourceConfig.integrationId')).toMatchObject({ type: 'string', format: 'uuid' });
    expect(at('spec.sourceConfig.integrationId').pattern).toBeUndefined();
    expect(at('status.lastSyncTime')).toMatchObject({ type: 'string', format: 'date-time' });
    expect(at('status.lastSyncTime').pattern).toBeUndefined();
  });
});

describe('the generator refuses what a structural schema cannot say', () => {
  it('rejects a union, naming the path', () => {
    const schema = z.object({ value: z.union([z.string(), z.number()]) });
    expect(() => toStructuralSchema(schema, 'spec')).toThrow(NonStructuralSchemaError);
    expect(() => toStructuralSchema(schema, 'spec')).toThrow(/spec\.value: uses "anyOf"/);
  });

  it('reports a list-type map whose key is not required', () => {
    const list: JsonSchema = {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' } } },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    };
    expect(structuralProblems(list, 'x')).toEqual(['x: list-map key "name" is not required']);
  });

  it('reports a node without a type', () => {
    expect(structuralProblems({ properties: { a: {} } }, 'x')).toEqual([
      'x: has no type',
      'x.a: has no type',
    ]);
  });
});

describe('the CustomResourceDefinition', () => {
  const crd = agentDeploymentCrd();
  const version = crd.spec.versions[0];

  it('names, scope and the one served and stored version', () => {
    expect(crd.metadata.name).toBe('agentdeployments.agentplatform.io');
    expect(crd.spec.group).toBe('agentplatform.io');
    expect(crd.spec.names).toEqual({
      kind: 'AgentDeployment',
      listKind: 'AgentDeploymentList',
      plural: 'agentdeployments',
      singular: 'agentdeployment',
      shortNames: ['agd'],
      categories: ['agents'],
    });
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.versions).toHaveLength(1);
    expect(version).toMatchObject({
      name: 'v1alpha1',
      served: true,
      storage: true,
      subresources: { status: {} },
    });
  });

  it('prints Ready, its reason, the active revision (short id) and latest revision, suspend and age; commit, image, ids, connection and URL in -o wide', () => {
    const columns = version?.additionalPrinterColumns ?? [];
    expect(columns.map((c) => [c.name, c.jsonPath, c.priority ?? 0])).toEqual([
      ['Ready', '.status.conditions[?(@.type=="Ready")].status', 0],
      ['Status', '.status.conditions[?(@.type=="Ready")].reason', 0],
      ['Revision', '.status.activeRevision.shortId', 0],
      ['Latest', '.status.latestRevisionStatus', 0],
      ['Suspended', '.spec.suspend', 0],
      ['Age', '.metadata.creationTimestamp', 0],
      ['Source', '.spec.source', 1],
      ['Commit', '.status.activeRevision.commit', 1],
      ['Image', '.status.activeRevision.imageVersion', 1],
      ['Deployment', '.status.deploymentId', 1],
      ['Connection', '.spec.connectionRef.name', 1],
      ['URL', '.status.url', 1],
      ['Message', '.status.conditions[?(@.type=="Ready")].message', 1],
    ]);
  });
});
