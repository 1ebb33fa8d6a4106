import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../src/sim/kube/validation/index.js';
import { prepare, resource, resourceSchema } from './helpers.js';

const specSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
    embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
  },
};
const schema = resourceSchema(specSchema);

describe('pruning', () => {
  const input = resource(
    {
      name: 'n',
      foo: 1,
      items: [{ name: 'a', bar: true }],
      labels: { any: 'kept' },
      free: { whatever: { deep: 1 }, known: { a: 'x', b: 'pruned' } },
      embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', junk: 1 }, spec: { x: 'y', z: 1 } },
    },
    { extraTop: true, metadata: { name: 'w1', namespace: 'default', bogus: 'x' } },
  );

  it('drops undeclared fields and keeps declared, map and preserved ones', () => {
    const result = prepare(schema, input);
    expect(result.object).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default' },
      spec: {
        name: 'n',
        items: [{ name: 'a' }],
        labels: { any: 'kept' },
        free: { whatever: { deep: 1 }, known: { a: 'x' } },
        embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'y' } },
      },
    });
    expect(result.unknownFields).toEqual([
      'extraTop',
      'metadata.bogus',
      'spec.embedded.metadata.junk',
      'spec.embedded.spec.z',
      'spec.foo',
      'spec.free.known.b',
      'spec.items[0].bar',
    ]);
  });

  it('does not mutate the caller\'s object', () => {
    const copy = structuredClone(input);
    prepare(schema, input);
    expect(input).toEqual(copy);
  });

  it.each([
    { mode: 'Ignore' as const, warnings: [], strictError: undefined },
    { mode: 'Warn' as const, warnings: ['unknown field "spec.foo"', 'unknown field "spec.items[0].bar"'], strictError: undefined },
    { mode: 'Strict' as const, warnings: [], strictError: 'strict decoding error: unknown field "spec.foo", unknown field "spec.items[0].bar"' },
  ])('fieldValidation=$mode', ({ mode, warnings, strictError }) => {
    const result = prepare(schema, resource({ foo: 1, items: [{ name: 'a', bar: 2 }] }), { fieldValidation: mode });
    expect(result.warnings).toEqual(warnings);
    expect(result.strictError).toBe(strictError);
    expect(result.causes).toEqual([]);
  });

  it('Strict stops before validation, as the decoder does', () => {
    const strictSchema = resourceSchema({ type: 'object', required: ['name'], properties: { name: { type: 'string' } } });
    const result = prepare(strictSchema, resource({ foo: 1 }), { fieldValidation: 'Strict' });
    expect(result.strictError).toBe('strict decoding error: unknown field "spec.foo"');
    expect(result.causes).toEqual([]);
  });

  it('Strict without unknown fields validates normally', () => {
    const result = prepare(schema, resource({ name: 'n' }), { fieldValidation: 'Strict' });
    expect(result.strictError).toBeUndefined();
    expect(result.unknownFields).toEqual([]);
  });
});

describe('defaulting', () => {
  const defaulted = resourceSchema({
    type: 'object',
    properties: {
      replicas: { type: 'integer', default: 1 },
      mode: { type: 'string', default: 'auto' },
      resources: { type: 'object', properties: { cpu: { type: 'string', default: '100m' } } },
      withDefaultObject: { type: 'object', default: {}, properties: { inner: { type: 'string', default: 'filled' } } },
      ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' }, port: { type: 'integer' } } } },
      tags: { type: 'array', items: { type: 'string', default: 'none' } },
      byName: { type: 'object', additionalProperties: { type: 'object', properties: { weight: { type: 'integer', default: 10 } } } },
      nullableWithDefault: { type: 'string', nullable: true, default: 'x' },
    },
  });

  it('fills defaults where the parent exists, never creating parents', () => {
    const result = prepare(defaulted, resource({ ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }], byName: { a: {} } }));
    expect(result.object['spec']).toEqual({
      replicas: 1,
      mode: 'auto',
      withDefaultObject: { inner: 'filled' },
      ports: [
        { port: 80, protocol: 'TCP' },
        { port: 53, protocol: 'UDP' },
      ],
      byName: { a: { weight: 10 } },
      nullableWithDefault: 'x',
    });
    expect(result.causes).toEqual([]);
  });

  it('does not default a spec that is absent', () => {
    const result = prepare(defaulted, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    expect(result.object['spec']).toBeUndefined();
  });

  it('replaces nulls of non-nullable fields with their default, keeps nullable nulls', () => {
    const result = prepare(defaulted, resource({ replicas: null, tags: [null, 'a'], nullableWithDefault: null, resources: { cpu: null } }));
    expect(result.object['spec']).toMatchObject({ replicas: 1, tags: ['none', 'a'], nullableWithDefault: null, resources: { cpu: '100m' } });
  });

  it('defaults are copies, not shared references', () => {
    const first = prepare(defaulted, resource({})).object['spec'] as Record<string, Record<string, unknown>>;
    (first['withDefaultObject'] as Record<string, unknown>)['inner'] = 'changed';
    const second = prepare(defaulted, resource({})).object['spec'] as Record<string, Record<string, unknown>>;
    expect(second['withDefaultObject']).toEqual({ inner: 'filled' });
  });
});
