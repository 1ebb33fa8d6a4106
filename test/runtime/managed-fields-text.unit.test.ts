import { describe, expect, it } from 'vitest';
import { withoutManagedFields } from '../../src/runtime/kube/managed-fields-text.js';

const ENTRY = {
  manager: 'agent-operator',
  operation: 'Update',
  apiVersion: 'agentplatform.io/v1alpha1',
  time: '2026-11-27T00:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } } } },
  subresource: 'status',
};

type Json = Record<string, unknown>;

/**
 * What decoding the cut line must give: the event, its object's managedFields deleted when
 * they are a list, as the API server sends them (anything else is left for the cache's trim).
 */
function expected(event: Json): Json {
  const copy = JSON.parse(JSON.stringify(event)) as { object?: { metadata?: Json } };
  const metadata = copy.object?.metadata;
  if (metadata && Array.isArray(metadata['managedFields'])) delete metadata['managedFields'];
  return copy as Json;
}

function event(metadata: Json, rest: Json = {}): Json {
  return { type: 'MODIFIED', object: { apiVersion: 'v1', kind: 'Thing', metadata, ...rest } };
}

describe('withoutManagedFields', () => {
  const cases: Array<[string, Json]> = [
    ['in the middle of the metadata', event({ name: 'a', managedFields: [ENTRY], resourceVersion: '7' })],
    ['first', event({ managedFields: [ENTRY, ENTRY], name: 'a' })],
    ['last', event({ name: 'a', uid: 'u', managedFields: [ENTRY] })],
    ['alone', event({ managedFields: [ENTRY] })],
    ['empty', event({ name: 'a', managedFields: [] })],
    [
      'after annotations that name it, quote it and escape quotes',
      event(
        {
          annotations: {
            managedFields: '[{"manager":"x"}]',
            'example.com/note': 'a \\"quoted\\" "managedFields": [ and a backslash \\\\',
          },
          managedFields: [ENTRY],
          name: 'a',
        },
        { spec: { managedFields: [{ manager: 'data, not ownership' }] } },
      ),
    ],
  ];

  for (const [name, value] of cases) {
    it(`cuts the object's managedFields ${name}, and nothing else`, () => {
      const line = JSON.stringify(value);
      const cut = withoutManagedFields(line);
      expect(cut.length).toBeLessThan(line.length);
      expect(JSON.parse(cut)).toEqual(expected(value));
    });
  }

  it('reads text with spaces and line breaks between the tokens (any server formatting)', () => {
    const value = event(
      { name: 'a', managedFields: [ENTRY], uid: 'u' },
      { spec: { n: 1.5e3, on: true, none: null } },
    );
    const line = JSON.stringify(value, null, 2).replace(/\n/g, ' ');
    expect(JSON.parse(withoutManagedFields(line))).toEqual(expected(value));
  });

  it('leaves a key spelled "managedFields" outside the object\'s metadata as it is', () => {
    const value = {
      type: 'MODIFIED',
      managedFields: [ENTRY],
      object: { metadata: { name: 'a' }, status: { managedFields: [1] } },
    };
    const line = JSON.stringify(value);
    expect(withoutManagedFields(line)).toBe(line);
  });

  it('returns events without managedFields, bookmarks and errors whole', () => {
    for (const value of [
      event({ name: 'a' }),
      { type: 'BOOKMARK', object: { kind: 'Thing', apiVersion: 'v1', metadata: { resourceVersion: '9' } } },
      { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', code: 410, reason: 'Expired' } },
    ]) {
      const line = JSON.stringify(value);
      expect(withoutManagedFields(line)).toBe(line);
    }
  });

  it('returns text it cannot follow whole, for JSON.parse to judge', () => {
    for (const line of [
      '',
      'not json',
      '{"type":"MODIFIED","object":{"metadata":{"managedFields":[{"a":1}',
      '["object"]',
      '{"object":"x"}',
    ]) {
      expect(withoutManagedFields(line)).toBe(line);
    }
  });

  it('gives what the cache keeps for random objects, whatever their keys and values', () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const words = [
      'managedFields',
      'metadata',
      'object',
      'a"b',
      'c\\d',
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      'x y',
      'é',
    ];
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 3 || pick < 0.3) return words[Math.floor(random() * words.length)];
      if (pick < 0.4) return Math.floor(random() * 1000) - 500;
      if (pick < 0.45) return null;
      if (pick < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [
          words[Math.floor(random() * words.length)] as string,
          value(depth + 1),
        ]),
      );
    };
    for (let i = 0; i < 300; i += 1) {
      const metadata = value(1);
      const object: Json = {
        metadata:
          typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
            ? metadata
            : { name: 'n' },
      };
      if (random() < 0.6) (object['metadata'] as Json)['managedFields'] = [ENTRY, value(2)];
      object['spec'] = value(1);
      const event_ = { type: 'MODIFIED', object };
      const line = JSON.stringify(event_);
      expect(JSON.parse(withoutManagedFields(line))).toEqual(expected(event_));
    }
  });
});
