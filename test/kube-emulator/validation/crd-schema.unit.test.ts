import { describe, expect, it } from 'vitest';
import { validateCrdSchema, type JSONSchemaProps } from '../../../src/sim/kube/validation/index.js';

const base = 'spec.versions[0].schema.openAPIV3Schema';

function specSchema(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { spec } };
}

function lines(schema: JSONSchemaProps): string[] {
  return validateCrdSchema(schema).map((c) => `${c.field}: ${c.message}`);
}

interface SchemaCase {
  name: string;
  schema: JSONSchemaProps;
  expected: string[];
}

const cases: SchemaCase[] = [
  {
    name: 'a typical structural schema is accepted',
    schema: specSchema({
      type: 'object',
      required: ['image'],
      'x-kubernetes-validations': [{ rule: 'self.replicas >= 0', message: 'no negatives' }],
      properties: {
        image: { type: 'string', pattern: '^[a-z]' },
        replicas: { type: 'integer', default: 1, minimum: 0 },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        env: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] },
      },
    }),
    expected: [],
  },
  { name: 'root type is required', schema: { properties: { spec: { type: 'object' } } }, expected: [`${base}.type: Required value: must not be empty at the root`] },
  { name: 'root must be an object', schema: { type: 'string' }, expected: [`${base}.type: Invalid value: "string": must be object at the root`] },
  { name: 'field types are required', schema: specSchema({ type: 'object', properties: { a: {} } }), expected: [`${base}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`] },
  { name: 'item types are required', schema: specSchema({ type: 'array', items: {} }), expected: [`${base}.properties[spec].items.type: Required value: must not be empty for specified array items`] },
  { name: 'arrays need items', schema: specSchema({ type: 'array' }), expected: [`${base}.properties[spec].items: Required value: must be specified`] },
  { name: 'uniqueItems is forbidden', schema: specSchema({ type: 'array', items: { type: 'string' }, uniqueItems: true }), expected: [`${base}.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`] },
  { name: 'additionalProperties false is forbidden', schema: specSchema({ type: 'object', additionalProperties: false }), expected: [`${base}.properties[spec].additionalProperties: Forbidden: additionalProperties cannot be set to false`] },
  {
    name: 'properties and additionalProperties are exclusive',
    schema: specSchema({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }),
    expected: [`${base}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
  },
  { name: 'type inside anyOf is not structural', schema: specSchema({ type: 'string', anyOf: [{ type: 'string', pattern: 'a' }] }), expected: [`${base}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`] },
  {
    name: 'root metadata may only restrict name and generateName',
    schema: { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } },
    expected: [`${base}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  },
  { name: 'invalid pattern', schema: specSchema({ type: 'string', pattern: '([a-z' }), expected: [expect.stringMatching(/^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.pattern: Invalid value: "\(\[a-z": must be a valid regular expression, but isn't: /) as unknown as string] },
  { name: 'unknown list type', schema: specSchema({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' }), expected: [`${base}.properties[spec].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`] },
  { name: 'map list needs keys', schema: specSchema({ type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map' }), expected: [`${base}.properties[spec].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`] },
  { name: 'default must validate', schema: specSchema({ type: 'object', properties: { n: { type: 'integer', maximum: 3, default: 5 } } }), expected: [`${base}.properties[spec].properties[n].default: Invalid value: 5: spec.n in body should be less than or equal to 3`] },
  { name: 'rule that does not parse', schema: specSchema({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a +' }] }), expected: [`${base}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "self.a +": compilation failed: ERROR: Unexpected token: EOF`] },
  { name: 'rule calling an unknown function', schema: specSchema({ type: 'object', 'x-kubernetes-validations': [{ rule: 'frobnicate(self)' }] }), expected: [`${base}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "frobnicate(self)": compilation failed: ERROR: found no matching overload for 'frobnicate(dyn)'`] },
  { name: 'rule must be a bool', schema: specSchema({ type: 'object', 'x-kubernetes-validations': [{ rule: '"yes"' }] }), expected: [`${base}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "\\"yes\\"": compilation failed: cel expression must evaluate to a bool`] },
  { name: 'bad reason', schema: specSchema({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true', reason: 'Nope' }] }), expected: [`${base}.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`] },
  { name: 'fieldPath must resolve', schema: specSchema({ type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.b' }] }), expected: [`${base}.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: ".b": fieldPath must be a valid path: does not refer to a valid field`] },
  { name: 'optionalOldSelf needs oldSelf', schema: specSchema({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true', optionalOldSelf: true }] }), expected: [`${base}.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Forbidden: may not be set if rule does not use oldSelf`] },
  {
    name: 'oldSelf inside an atomic list item is uncorrelatable',
    schema: specSchema({ type: 'object', properties: { l: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } } }),
    expected: [`${base}.properties[spec].properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.l`],
  },
];

describe('validateCrdSchema', () => {
  it.each(cases)('$name', ({ schema, expected }) => {
    expect(lines(schema)).toEqual(expected);
  });

  it('uses the caller\'s base path', () => {
    const causes = validateCrdSchema({ type: 'string' }, 'spec.versions[1].schema.openAPIV3Schema');
    expect(causes[0]?.field).toBe('spec.versions[1].schema.openAPIV3Schema.type');
  });
});
