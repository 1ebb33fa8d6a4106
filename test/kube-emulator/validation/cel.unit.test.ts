import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps, ValidationRule } from '../../../src/sim/kube/validation/index.js';
import { causeLines, prepare, resource, resourceSchema } from './helpers.js';

function withRules(rules: ValidationRule[], properties: Record<string, JSONSchemaProps> = {}): JSONSchemaProps {
  return resourceSchema({
    type: 'object',
    'x-kubernetes-validations': rules,
    properties: {
      name: { type: 'string' },
      replicas: { type: 'integer' },
      ratio: { type: 'number' },
      port: { 'x-kubernetes-int-or-string': true },
      tags: { type: 'array', items: { type: 'string' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      min: { type: 'integer' },
      max: { type: 'integer' },
      url: { type: 'string' },
      ...properties,
    },
  });
}

interface RuleCase {
  name: string;
  rule: ValidationRule;
  spec: Record<string, unknown>;
  /** Expected lines; [] = passes. */
  expected: string[];
}

const ruleCases: RuleCase[] = [
  { name: 'integer comparison', rule: { rule: 'self.replicas <= 10' }, spec: { replicas: 3 }, expected: [] },
  { name: 'failing rule without message', rule: { rule: 'self.replicas <= 10' }, spec: { replicas: 30 }, expected: ['spec: Invalid value: "object": failed rule: self.replicas <= 10'] },
  { name: 'failing rule with message', rule: { rule: 'self.min <= self.max', message: 'min must not exceed max' }, spec: { min: 5, max: 1 }, expected: ['spec: Invalid value: "object": min must not exceed max'] },
  { name: 'messageExpression', rule: { rule: 'self.replicas <= 10', messageExpression: '"replicas is " + string(self.replicas)' }, spec: { replicas: 12 }, expected: ['spec: Invalid value: "object": replicas is 12'] },
  { name: 'messageExpression falls back to message when it fails', rule: { rule: 'false', message: 'fallback', messageExpression: 'self.missing' }, spec: {}, expected: ['spec: Invalid value: "object": fallback'] },
  { name: 'fieldPath moves the error', rule: { rule: 'self.replicas > 0', message: 'must be positive', fieldPath: '.replicas' }, spec: { replicas: 0 }, expected: ['spec.replicas: Invalid value: "object": must be positive'] },
  { name: 'reason FieldValueForbidden', rule: { rule: '!has(self.url)', message: 'url not allowed', reason: 'FieldValueForbidden' }, spec: { url: 'x' }, expected: ['spec: Forbidden: url not allowed'] },
  { name: 'reason FieldValueRequired', rule: { rule: 'has(self.name)', message: 'name is needed', reason: 'FieldValueRequired' }, spec: {}, expected: ['spec: Required value: name is needed'] },
  { name: 'reason FieldValueDuplicate', rule: { rule: 'false', reason: 'FieldValueDuplicate' }, spec: {}, expected: ['spec: Duplicate value: "object"'] },
  { name: 'has() on an absent field', rule: { rule: '!has(self.name) || self.name.size() > 2' }, spec: {}, expected: [] },
  { name: 'no such key is an evaluation error', rule: { rule: 'self.name == "x"' }, spec: {}, expected: ['spec: Invalid value: "object": no such key: name evaluating rule: self.name == "x"'] },
  { name: 'double against int', rule: { rule: 'self.ratio < 1' }, spec: { ratio: 0.5 }, expected: [] },
  { name: 'number field holding an integer stays a double', rule: { rule: 'self.ratio == 2.0' }, spec: { ratio: 2 }, expected: [] },
  { name: 'int-or-string via type()', rule: { rule: 'type(self.port) == string ? self.port.startsWith("http") : self.port > 0' }, spec: { port: 8080 }, expected: [] },
  { name: 'runtime overload error', rule: { rule: 'self.port > 0' }, spec: { port: 'http' }, expected: ["spec: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.port > 0"] },
  { name: 'all() macro', rule: { rule: 'self.tags.all(t, t.matches("^[a-z]+$"))', message: 'tags must be lowercase' }, spec: { tags: ['ok', 'NO'] }, expected: ['spec: Invalid value: "object": tags must be lowercase'] },
  { name: 'exists / exists_one / filter / map', rule: { rule: 'self.tags.exists(t, t == "a") && self.tags.exists_one(t, t == "b") && self.tags.filter(t, t != "a").map(t, t + "!") == ["b!"]' }, spec: { tags: ['a', 'b'] }, expected: [] },
  { name: 'map keys via all()', rule: { rule: 'self.labels.all(k, k.startsWith("app/"))' }, spec: { labels: { 'app/x': '1', other: '2' } }, expected: ['spec: Invalid value: "object": failed rule: self.labels.all(k, k.startsWith("app/"))'] },
  { name: 'optional field access', rule: { rule: 'self.?name.orValue("default") == "default"' }, spec: {}, expected: [] },
  { name: 'string functions', rule: { rule: 'self.name.lowerAscii() == "abc" && self.name.upperAscii() == "ABC" && self.name.indexOf("b") == 1 && self.name.endsWith("C") && self.name.contains("b")' }, spec: { name: 'abC' }, expected: [] },
  { name: 'kubernetes list functions', rule: { rule: '[1, 2, 3].isSorted() && [1, 2].sum() == 3 && [4, 2].min() == 2 && [4, 2].max() == 4' }, spec: {}, expected: [] },
  { name: 'isURL and url()', rule: { rule: 'isURL(self.url) && url(self.url).getScheme() == "https" && url(self.url).getHostname() == "example.com"' }, spec: { url: 'https://example.com:8443/p' }, expected: [] },
  { name: 'isURL rejects a relative reference', rule: { rule: 'isURL(self.url)', message: 'must be a URL' }, spec: { url: 'example.com' }, expected: ['spec: Invalid value: "object": must be a URL'] },
  // A path-absolute reference with an authority that does not parse: false, not an evaluation error.
  { name: 'isURL rejects a broken authority', rule: { rule: 'isURL(self.url)', message: 'must be a URL' }, spec: { url: '//[oops' }, expected: ['spec: Invalid value: "object": must be a URL'] },
  { name: 'metadata.name at the root is visible', rule: { rule: 'size(self.name) > 0' }, spec: { name: 'x' }, expected: [] },
];

describe('x-kubernetes-validations', () => {
  it.each(ruleCases)('$name', ({ rule, spec, expected }) => {
    const result = prepare(withRules([rule]), resource(spec));
    expect(causeLines(result)).toEqual(expected);
  });

  it('root rules report at <nil> and see only name/generateName of metadata', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.metadata.name.startsWith("w")', message: 'name must start with w' },
        { rule: '!has(self.metadata.namespace)', message: 'namespace hidden' },
      ],
      properties: { spec: { type: 'object' } },
    };
    const result = prepare(schema, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x1', namespace: 'default' }, spec: {} });
    expect(causeLines(result)).toEqual(['<nil>: Invalid value: "object": name must start with w']);
  });

  it('rules inside array items report the item path', () => {
    const schema = resourceSchema({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            'x-kubernetes-validations': [{ rule: 'self.name != "bad"', message: 'bad name' }],
            properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 5' }] } },
          },
        },
      },
    });
    const result = prepare(schema, resource({ items: [{ name: 'a' }, { name: 'b' }, { name: 'bad' }, { name: 'toolong' }] }));
    expect(causeLines(result)).toEqual([
      'spec.items[2]: Invalid value: "object": bad name',
      'spec.items[3].name: Invalid value: "string": failed rule: self.size() < 5',
    ]);
  });

  it('rules under a schema map report the key in brackets', () => {
    const schema = resourceSchema({
      type: 'object',
      properties: { limits: { type: 'object', additionalProperties: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0', message: 'negative' }] } } },
    });
    expect(causeLines(prepare(schema, resource({ limits: { cpu: -1 } })))).toEqual(['spec.limits[cpu]: Invalid value: "integer": negative']);
  });

  it('does not evaluate rules on null values', () => {
    const schema = resourceSchema({ type: 'object', properties: { n: { type: 'string', nullable: true, 'x-kubernetes-validations': [{ rule: 'self.size() > 3' }] } } });
    expect(prepare(schema, resource({ n: null })).causes).toEqual([]);
  });
});

describe('transition rules', () => {
  const immutable = resourceSchema({
    type: 'object',
    properties: {
      name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }] },
      mode: { type: 'string' },
    },
    'x-kubernetes-validations': [{ rule: '!has(oldSelf.mode) || has(self.mode)', message: 'mode cannot be unset once set' }],
  });

  it('are skipped on create', () => {
    expect(prepare(immutable, resource({ name: 'a' })).causes).toEqual([]);
  });

  it('self == oldSelf rejects a change', () => {
    const old = resource({ name: 'a' });
    expect(causeLines(prepare(immutable, resource({ name: 'b' }), { oldObject: old }))).toEqual(['spec.name: Invalid value: "string": name is immutable']);
  });

  it('self == oldSelf accepts an unchanged value', () => {
    const old = resource({ name: 'a' });
    expect(prepare(immutable, resource({ name: 'a', mode: 'x' }), { oldObject: old }).causes).toEqual([]);
  });

  it('are skipped when the field did not exist before', () => {
    const old = resource({});
    expect(prepare(immutable, resource({ name: 'new' }), { oldObject: old }).causes).toEqual([]);
  });

  it('!has(oldSelf.x) || has(self.x) forbids unsetting', () => {
    const old = resource({ mode: 'fast' });
    expect(causeLines(prepare(immutable, resource({}), { oldObject: old }))).toEqual(['spec: Invalid value: "object": mode cannot be unset once set']);
    expect(prepare(immutable, resource({ mode: 'slow' }), { oldObject: old }).causes).toEqual([]);
  });

  it('optionalOldSelf runs on create with oldSelf as an empty optional', () => {
    const schema = resourceSchema({
      type: 'object',
      properties: {
        tier: { type: 'string', 'x-kubernetes-validations': [{ rule: 'oldSelf.hasValue() ? oldSelf.value() == self : self == "basic"', optionalOldSelf: true, message: 'starts basic, then fixed' }] },
      },
    });
    expect(causeLines(prepare(schema, resource({ tier: 'gold' })))).toEqual(['spec.tier: Invalid value: "string": starts basic, then fixed']);
    expect(prepare(schema, resource({ tier: 'basic' })).causes).toEqual([]);
    expect(causeLines(prepare(schema, resource({ tier: 'gold' }), { oldObject: resource({ tier: 'basic' }) }))).toEqual([
      'spec.tier: Invalid value: "string": starts basic, then fixed',
    ]);
  });

  it('correlates list-type=map items by key', () => {
    const schema = resourceSchema({
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'port is immutable' }] } },
          },
        },
      },
    });
    const old = resource({ ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] });
    // reordered and a new item: fine
    expect(prepare(schema, resource({ ports: [{ name: 'b', port: 2 }, { name: 'c', port: 9 }, { name: 'a', port: 1 }] }), { oldObject: old }).causes).toEqual([]);
    expect(causeLines(prepare(schema, resource({ ports: [{ name: 'b', port: 2 }, { name: 'a', port: 5 }] }), { oldObject: old }))).toEqual([
      'spec.ports[1].port: Invalid value: "integer": port is immutable',
    ]);
  });
});

describe('ratcheting and the status subresource', () => {
  const tightened = resourceSchema({ type: 'object', properties: { name: { type: 'string', maxLength: 3 }, other: { type: 'string' } } });

  it('an unchanged invalid value does not block an update of something else', () => {
    const old = resource({ name: 'toolong', other: 'a' });
    expect(prepare(tightened, resource({ name: 'toolong', other: 'b' }), { oldObject: old }).causes).toEqual([]);
    expect(causeLines(prepare(tightened, resource({ name: 'toolong2', other: 'b' }), { oldObject: old }))).toEqual(['spec.name: Too long: may not be longer than 3']);
  });

  it('an unchanged value failing a CEL rule becomes a warning', () => {
    const schema = resourceSchema({ type: 'object', properties: { n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 5', message: 'too big' }] }, other: { type: 'string' } } });
    const result = prepare(schema, resource({ n: 9, other: 'b' }), { oldObject: resource({ n: 9, other: 'a' }) });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual(['spec.n: Invalid value: "integer": too big']);
  });

  const withStatus: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { size: { type: 'integer', maximum: 3 } } },
      status: { type: 'object', properties: { phase: { type: 'string', enum: ['Ready', 'Pending'] }, count: { type: 'integer', default: 0 } } },
    },
  };

  it('a status write keeps the stored spec and validates the new status', () => {
    const old = resource({ size: 1 }, { status: { phase: 'Pending' } });
    const incoming = resource({ size: 100 }, { status: { phase: 'Ready', junk: true } });
    const result = prepare(withStatus, incoming, { oldObject: old, subresource: 'status' });
    expect(result.causes).toEqual([]);
    expect(result.object['spec']).toEqual({ size: 1 });
    expect(result.object['status']).toEqual({ phase: 'Ready', count: 0 });
  });

  // A /status write skips the spec's transition rules (their causes would be dropped): what
  // counts stays as it was, a failing rule on either side included.
  const ruled: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 5', message: 'too big' }] } },
        'x-kubernetes-validations': [{ rule: 'has(self.n) && has(oldSelf.n) && self.n < oldSelf.n', message: 'must shrink' }],
      },
      status: {
        type: 'object',
        properties: { count: { type: 'integer' } },
        'x-kubernetes-validations': [{ rule: '!has(oldSelf.count) || self.count >= oldSelf.count', message: 'count may not go down' }],
      },
    },
  };

  it('a status write is not refused by the stored spec, and still warns of its ratcheted failures', () => {
    const old = resource({ n: 9 }, { status: { count: 1 } });
    const result = prepare(ruled, resource({ n: 9 }, { status: { count: 2 } }), { oldObject: old, subresource: 'status' });
    expect(result.causes).toEqual([]);
    expect(result.warnings).toEqual(['spec.n: Invalid value: "integer": too big']);
  });

  it('a status write is refused by a transition rule of the status', () => {
    const old = resource({ n: 1 }, { status: { count: 3 } });
    const result = prepare(ruled, resource({ n: 1 }, { status: { count: 2 } }), { oldObject: old, subresource: 'status' });
    expect(causeLines(result)).toEqual(['status: Invalid value: "object": count may not go down']);
  });

  it('an update of the object still applies the spec transition rules', () => {
    const old = resource({ n: 1 });
    expect(causeLines(prepare(ruled, resource({ n: 1 }), { oldObject: old }))).toEqual(['spec: Invalid value: "object": must shrink']);
    expect(prepare(ruled, resource({ n: 0 }), { oldObject: old }).causes).toEqual([]);
  });

  it('a status write with a bad status is rejected at the status path', () => {
    const old = resource({ size: 1 });
    const result = prepare(withStatus, resource({ size: 1 }, { status: { phase: 'Gone' } }), { oldObject: old, subresource: 'status' });
    expect(causeLines(result)).toEqual(['status.phase: Unsupported value: "Gone": supported values: "Ready", "Pending"']);
  });
});
