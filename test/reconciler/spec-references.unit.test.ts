import { describe, expect, it } from 'vitest';
import type { ReconcilerSpecView } from '../../src/reconcilers/agentdeployment/object.js';
import { specReferences } from '../../src/reconcilers/agentdeployment/spec-references.js';

const smokeTest = {
  input: { messages: [{ role: 'user', content: 'ping' }] },
  apiKeySecretRef: { name: 'own-key', key: 'key' },
  headers: [
    { name: 'X-Team', valueFrom: { secretKeyRef: { name: 'headers', key: 'team' } } },
    { name: 'X-Tier', valueFrom: { secretKeyRef: { name: 'headers', key: 'tier' } } },
  ],
} as unknown as ReconcilerSpecView['smokeTest'];

function spec(): ReconcilerSpecView {
  return {
    secrets: [
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'keys', key: 'token' } } },
      { name: 'AGAIN', valueFrom: { secretKeyRef: { name: 'keys', key: 'other' } } },
      { name: 'REGION', valueFrom: { configMapKeyRef: { name: 'settings', key: 'region' } } },
      { name: 'PLAIN', value: 'not a reference' },
    ],
    envFrom: [{ secretRef: { name: 'bulk' } }, { configMapRef: { name: 'settings' } }],
    smokeTest,
  };
}

const inNamespace = (namespace: string, value: ReconcilerSpecView) => ({
  metadata: { namespace },
  spec: value,
});

describe('specReferences', () => {
  it('names each Secret and ConfigMap the spec references once, the smoke test’s own key only in the index', () => {
    const references = specReferences(inNamespace('team-a', spec()));
    // What a pass loads: spec.secrets, spec.envFrom and the headers' Secrets.
    expect([...references.loadedSecretNames].sort()).toEqual(['bulk', 'headers', 'keys']);
    expect(references.configMapNames).toEqual(['settings']);
    // What wakes the object: those, and the Secret of the smoke test's own key (read when called).
    expect([...references.secretKeys].sort()).toEqual([
      'team-a/bulk',
      'team-a/headers',
      'team-a/keys',
      'team-a/own-key',
    ]);
    expect(references.configMapKeys).toEqual(['team-a/settings']);
  });

  it('references nothing for a spec that names no Secret or ConfigMap', () => {
    const references = specReferences(inNamespace('team-a', {}));
    expect(references).toEqual({
      loadedSecretNames: [],
      configMapNames: [],
      secretKeys: [],
      configMapKeys: [],
    });
  });

  it("answers a cached (frozen) spec's lists from memory, and works them out anew for a spec that can change", () => {
    const cached = Object.freeze(spec());
    const first = specReferences(inNamespace('team-a', cached));
    expect(specReferences(inNamespace('team-a', cached))).toBe(first);
    // The same spec object seen under another namespace is not answered with the first's keys.
    expect(specReferences(inNamespace('team-b', cached)).secretKeys).toContain('team-b/keys');

    const editable = spec();
    expect(specReferences(inNamespace('team-a', editable)).loadedSecretNames).toContain('keys');
    editable.secrets = [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'rotated', key: 'token' } } }];
    expect(specReferences(inNamespace('team-a', editable)).loadedSecretNames).not.toContain('keys');
  });

  it('hands out lists no caller can change', () => {
    const references = specReferences(inNamespace('team-a', spec()));
    expect(Object.isFrozen(references.secretKeys)).toBe(true);
    expect(Object.isFrozen(references.loadedSecretNames)).toBe(true);
  });
});
