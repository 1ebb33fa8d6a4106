import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../src/sim/kube/validation/index.js';
import { causeLines, prepare, resource, resourceSchema } from './helpers.js';

interface KeywordCase {
  name: string;
  field: JSONSchemaProps;
  value: unknown;
  /** Expected `field: message` lines, [] for accepted. */
  expected: string[];
  reason?: string;
}

const cases: KeywordCase[] = [
  // types
  { name: 'integer accepts an integer', field: { type: 'integer' }, value: 3, expected: [] },
  { name: 'integer rejects a string', field: { type: 'integer' }, value: 'x', reason: 'FieldValueTypeInvalid', expected: ['spec.f: Invalid value: "string": spec.f in body must be of type integer: "string"'] },
  { name: 'integer rejects a fraction', field: { type: 'integer' }, value: 1.5, expected: ['spec.f: Invalid value: "number": spec.f in body must be of type integer: "number"'] },
  { name: 'number accepts an integer', field: { type: 'number' }, value: 2, expected: [] },
  { name: 'string rejects a boolean', field: { type: 'string' }, value: true, expected: ['spec.f: Invalid value: "boolean": spec.f in body must be of type string: "boolean"'] },
  { name: 'boolean rejects a number', field: { type: 'boolean' }, value: 0, expected: ['spec.f: Invalid value: "integer": spec.f in body must be of type boolean: "integer"'] },
  { name: 'object rejects an array', field: { type: 'object' }, value: [], expected: ['spec.f: Invalid value: "array": spec.f in body must be of type object: "array"'] },
  { name: 'array rejects an object', field: { type: 'array', items: { type: 'string' } }, value: {}, expected: ['spec.f: Invalid value: "object": spec.f in body must be of type array: "object"'] },
  // nullable
  { name: 'nullable keeps null', field: { type: 'string', nullable: true }, value: null, expected: [] },
  // int-or-string
  { name: 'int-or-string accepts an int', field: { 'x-kubernetes-int-or-string': true }, value: 8080, expected: [] },
  { name: 'int-or-string accepts a string', field: { 'x-kubernetes-int-or-string': true }, value: 'http', expected: [] },
  { name: 'int-or-string rejects a boolean', field: { 'x-kubernetes-int-or-string': true }, value: true, expected: ['spec.f: Invalid value: "boolean": spec.f in body must be of type integer,string: "boolean"'] },
  // enum
  { name: 'enum accepts a member', field: { type: 'string', enum: ['a', 'b'] }, value: 'a', expected: [] },
  { name: 'enum rejects others', field: { type: 'string', enum: ['a', 'b'] }, value: 'x', reason: 'FieldValueNotSupported', expected: ['spec.f: Unsupported value: "x": supported values: "a", "b"'] },
  { name: 'integer enum prints numbers', field: { type: 'integer', enum: [1, 2] }, value: 3, expected: ['spec.f: Unsupported value: 3: supported values: "1", "2"'] },
  // numeric bounds
  { name: 'maximum', field: { type: 'integer', maximum: 8 }, value: 20, expected: ['spec.f: Invalid value: 20: spec.f in body should be less than or equal to 8'] },
  { name: 'maximum inclusive edge', field: { type: 'integer', maximum: 8 }, value: 8, expected: [] },
  { name: 'exclusiveMaximum', field: { type: 'integer', maximum: 8, exclusiveMaximum: true }, value: 8, expected: ['spec.f: Invalid value: 8: spec.f in body should be less than 8'] },
  { name: 'minimum', field: { type: 'number', minimum: 0.5 }, value: 0.25, expected: ['spec.f: Invalid value: 0.25: spec.f in body should be greater than or equal to 0.5'] },
  { name: 'exclusiveMinimum', field: { type: 'integer', minimum: 0, exclusiveMinimum: true }, value: 0, expected: ['spec.f: Invalid value: 0: spec.f in body should be greater than 0'] },
  { name: 'multipleOf', field: { type: 'integer', multipleOf: 5 }, value: 12, expected: ['spec.f: Invalid value: 12: spec.f in body should be a multiple of 5'] },
  // strings
  { name: 'maxLength counts characters', field: { type: 'string', maxLength: 3 }, value: 'ééé', expected: [] },
  { name: 'maxLength', field: { type: 'string', maxLength: 3 }, value: 'abcd', reason: 'FieldValueTooLong', expected: ['spec.f: Too long: may not be longer than 3'] },
  { name: 'minLength', field: { type: 'string', minLength: 3 }, value: 'ab', expected: ['spec.f: Invalid value: "ab": spec.f in body should be at least 3 chars long'] },
  { name: 'pattern', field: { type: 'string', pattern: '^[a-z]+$' }, value: 'ABC', expected: ["spec.f: Invalid value: \"ABC\": spec.f in body should match '^[a-z]+$'"] },
  { name: 'pattern is unanchored like Go', field: { type: 'string', pattern: '[0-9]' }, value: 'a1b', expected: [] },
  // formats
  { name: 'date-time accepts RFC 3339', field: { type: 'string', format: 'date-time' }, value: '2024-05-01T10:00:00Z', expected: [] },
  { name: 'date-time rejects junk', field: { type: 'string', format: 'date-time' }, value: 'yesterday', reason: 'FieldValueTypeInvalid', expected: ['spec.f: Invalid value: "yesterday": spec.f in body must be of type date-time: "yesterday"'] },
  { name: 'uuid', field: { type: 'string', format: 'uuid' }, value: 'nope', expected: ['spec.f: Invalid value: "nope": spec.f in body must be of type uuid: "nope"'] },
  { name: 'uuid accepts', field: { type: 'string', format: 'uuid' }, value: '123e4567-e89b-12d3-a456-426614174000', expected: [] },
  { name: 'ipv4', field: { type: 'string', format: 'ipv4' }, value: '300.1.1.1', expected: ['spec.f: Invalid value: "300.1.1.1": spec.f in body must be of type ipv4: "300.1.1.1"'] },
  { name: 'unknown formats pass', field: { type: 'string', format: 'my-format' }, value: 'anything', expected: [] },
  { name: 'int32 is not a string check', field: { type: 'integer', format: 'int32' }, value: 5, expected: [] },
  // arrays
  { name: 'minItems', field: { type: 'array', items: { type: 'string' }, minItems: 2 }, value: ['a'], expected: ['spec.f: Invalid value: 1: spec.f in body should have at least 2 items'] },
  { name: 'maxItems', field: { type: 'array', items: { type: 'string' }, maxItems: 1 }, value: ['a', 'b'], reason: 'FieldValueTooMany', expected: ['spec.f: Too many: 2: must have at most 1 items'] },
  { name: 'uniqueItems', field: { type: 'array', items: { type: 'string' }, uniqueItems: true }, value: ['a', 'a'], expected: ['spec.f: Invalid value: "": spec.f in body shouldn\'t contain duplicates'] },
  { name: 'item errors carry the index', field: { type: 'array', items: { type: 'object', properties: { name: { type: 'string', maxLength: 2 } } } }, value: [{ name: 'ok' }, { name: 'ok' }, { name: 'long' }], expected: ['spec.f[2].name: Too long: may not be longer than 2'] },
  // objects
  { name: 'required', field: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }, value: {}, reason: 'FieldValueRequired', expected: ['spec.f.name: Required value'] },
  { name: 'minProperties', field: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 2 }, value: { a: 'x' }, expected: ['spec.f: Invalid value: 1: spec.f in body should have at least 2 properties'] },
  { name: 'maxProperties', field: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 }, value: { a: 'x', b: 'y' }, expected: ['spec.f: Too many: 2: must have at most 1 items'] },
  { name: 'additionalProperties schema applies to values', field: { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } }, value: { a: 0 }, expected: ['spec.f.a: Invalid value: 0: spec.f.a in body should be greater than or equal to 1'] },
  // list types
  { name: 'list-type set duplicate', field: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, value: ['a', 'b', 'a'], reason: 'FieldValueDuplicate', expected: ['spec.f[2]: Duplicate value: "a"'] },
  { name: 'list-type set unique', field: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, value: ['a', 'b'], expected: [] },
  {
    name: 'list-type map duplicate key',
    field: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, v: { type: 'integer' } } } },
    value: [{ name: 'a', v: 1 }, { name: 'a', v: 2 }],
    expected: ['spec.f[1]: Duplicate value: map[string]interface {}{"name":"a"}'],
  },
  {
    name: 'list-type map with two keys',
    field: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'], items: { type: 'object', required: ['port', 'protocol'], properties: { port: { type: 'integer' }, protocol: { type: 'string' } } } },
    value: [{ port: 80, protocol: 'TCP' }, { port: 80, protocol: 'UDP' }, { port: 80, protocol: 'TCP' }],
    expected: ['spec.f[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}'],
  },
  // allOf / anyOf / oneOf / not
  { name: 'allOf applies every branch', field: { type: 'integer', allOf: [{ minimum: 1 }, { maximum: 3 }] }, value: 5, expected: ['spec.f: Invalid value: 5: spec.f in body should be less than or equal to 3'] },
  { name: 'anyOf needs one branch', field: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] }, value: 'c', expected: ['spec.f: Invalid value: "": spec.f in body must validate at least one schema (anyOf)'] },
  { name: 'not rejects a match', field: { type: 'string', not: { enum: ['root'] } }, value: 'root', expected: ['spec.f: Invalid value: "": spec.f in body shouldn\'t validate the schema (not)'] },
];

describe('schema keywords', () => {
  it.each(cases)('$name', ({ field, value, expected, reason }) => {
    const schema = resourceSchema({ type: 'object', properties: { f: field } });
    const result = prepare(schema, resource({ f: value }));
    expect(causeLines(result)).toEqual(expected);
    if (reason !== undefined) expect(result.causes[0]?.reason).toBe(reason);
  });

  it('reports a missing required top-level field at its own path', () => {
    const schema: JSONSchemaProps = { type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } };
    const result = prepare(schema, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    expect(result.causes).toEqual([{ reason: 'FieldValueRequired', field: 'spec', message: 'Required value' }]);
  });

  it('reports every problem of one object, not just the first', () => {
    const schema = resourceSchema({
      type: 'object',
      required: ['image'],
      properties: { replicas: { type: 'integer', maximum: 8 }, mode: { type: 'string', enum: ['a', 'b'] }, image: { type: 'string' } },
    });
    const result = prepare(schema, resource({ replicas: 20, mode: 'x' }));
    expect(causeLines(result).sort()).toEqual([
      'spec.image: Required value',
      'spec.mode: Unsupported value: "x": supported values: "a", "b"',
      'spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 8',
    ]);
  });

  it('rejects null in a non-nullable list item but drops a null field', () => {
    const schema = resourceSchema({ type: 'object', properties: { names: { type: 'array', items: { type: 'string' } }, note: { type: 'string' } } });
    const result = prepare(schema, resource({ names: ['a', null], note: null }));
    expect(causeLines(result)).toEqual(['spec.names[1]: Invalid value: "null": spec.names[1] in body must be of type string: "null"']);
    expect(result.object['spec']).toEqual({ names: ['a', null] });
  });
});
