// Resolution of spec.secrets: plain values, Secret keys and ConfigMap keys, the versions that
// drive "a changed source makes a new revision", and the message naming the field when a
// referenced object or key is missing (never a value).
import { describe, expect, it } from 'vitest';
import {
  referencedConfigMapNames,
  referencedSecretNames,
  resolveSecrets,
  type KeySources,
  type SecretSource,
} from '../../src/reconcilers/agentdeployment/secrets.js';

const secrets: Record<string, SecretSource> = {
  keys: {
    metadata: { resourceVersion: '11' },
    data: { token: Buffer.from('sk-secret-1').toString('base64') },
  },
};
const configMaps: Record<string, SecretSource> = {
  // A ConfigMap's data reads as stringData, its binaryData as data (base64).
  settings: {
    metadata: { resourceVersion: '21' },
    stringData: { region: 'eu-west-1' },
    data: { blob: Buffer.from('binary-ish').toString('base64') },
  },
};
const sources: KeySources = { secret: (name) => secrets[name], configMap: (name) => configMaps[name] };

describe('resolveSecrets', () => {
  it('resolves every shape in spec order and records each source object version by kind', () => {
    const resolution = resolveSecrets(
      [
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'keys', key: 'token' } } },
        { name: 'REGION', valueFrom: { configMapKeyRef: { name: 'settings', key: 'region' } } },
        { name: 'BLOB', valueFrom: { configMapKeyRef: { name: 'settings', key: 'blob' } } },
      ],
      sources,
    );
    expect(resolution).toEqual({
      ok: true,
      secrets: [
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'TOKEN', value: 'sk-secret-1' },
        { name: 'REGION', value: 'eu-west-1' },
        { name: 'BLOB', value: 'binary-ish' },
      ],
      // A Secret keeps its bare name (versions recorded before ConfigMaps existed stay valid).
      versions: { keys: '11', 'ConfigMap/settings': '21' },
    });
  });

  it('a Secret and a ConfigMap of the same name are two sources', () => {
    const same: KeySources = {
      secret: () => ({ metadata: { resourceVersion: '1' }, stringData: { k: 'from-secret' } }),
      configMap: () => ({ metadata: { resourceVersion: '2' }, stringData: { k: 'from-configmap' } }),
    };
    const resolution = resolveSecrets(
      [
        { name: 'A', valueFrom: { secretKeyRef: { name: 'shared', key: 'k' } } },
        { name: 'B', valueFrom: { configMapKeyRef: { name: 'shared', key: 'k' } } },
      ],
      same,
    );
    expect(resolution).toMatchObject({
      ok: true,
      secrets: [
        { name: 'A', value: 'from-secret' },
        { name: 'B', value: 'from-configmap' },
      ],
      versions: { shared: '1', 'ConfigMap/shared': '2' },
    });
  });

  it.each([
    [
      'a missing ConfigMap',
      { name: 'REGION', valueFrom: { configMapKeyRef: { name: 'absent', key: 'region' } } },
      'spec.secrets (REGION, valueFrom.configMapKeyRef): ConfigMap "absent" not found',
    ],
    [
      'a missing ConfigMap key',
      { name: 'REGION', valueFrom: { configMapKeyRef: { name: 'settings', key: 'zone' } } },
      'spec.secrets (REGION, valueFrom.configMapKeyRef): ConfigMap "settings" has no key "zone"',
    ],
    [
      'a missing Secret',
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'absent', key: 'token' } } },
      'spec.secrets (TOKEN, valueFrom.secretKeyRef): Secret "absent" not found',
    ],
    [
      'a missing Secret key',
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'keys', key: 'other' } } },
      'spec.secrets (TOKEN, valueFrom.secretKeyRef): Secret "keys" has no key "other"',
    ],
  ])('%s is named by field, object and key, with no value', (_, reference, message) => {
    const resolution = resolveSecrets([{ name: 'LOG_LEVEL', value: 'info' }, reference], sources);
    expect(resolution).toEqual({ ok: false, message });
    expect(JSON.stringify(resolution)).not.toContain('sk-secret-1');
  });

  it('lists the referenced Secrets and ConfigMaps apart, once each, plain values referring to neither', () => {
    const references = [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'A', valueFrom: { secretKeyRef: { name: 'keys', key: 'a' } } },
      { name: 'B', valueFrom: { secretKeyRef: { name: 'keys', key: 'b' } } },
      { name: 'C', valueFrom: { configMapKeyRef: { name: 'settings', key: 'c' } } },
    ];
    expect(referencedSecretNames(references)).toEqual(['keys']);
    expect(referencedConfigMapNames(references)).toEqual(['settings']);
    expect(referencedConfigMapNames(undefined)).toEqual([]);
  });

  it('expands envFrom: every key with the prefix, sorted, a later source and then spec.secrets winning a name', () => {
    const resolution = resolveSecrets([{ name: 'APP_region', value: 'explicit' }], sources, [
      { configMapRef: { name: 'settings' }, prefix: 'APP_' },
      { secretRef: { name: 'keys' } },
    ]);
    expect(resolution).toEqual({
      ok: true,
      secrets: [
        { name: 'APP_blob', value: 'binary-ish' },
        { name: 'token', value: 'sk-secret-1' },
        { name: 'APP_region', value: 'explicit' },
      ],
      versions: { 'ConfigMap/settings': '21', keys: '11' },
    });
    // Without the override, the ConfigMap's region comes through under the prefix.
    expect(
      resolveSecrets(undefined, sources, [{ configMapRef: { name: 'settings' }, prefix: 'APP_' }]),
    ).toMatchObject({
      ok: true,
      secrets: [
        { name: 'APP_blob', value: 'binary-ish' },
        { name: 'APP_region', value: 'eu-west-1' },
      ],
    });
  });

  it('skips envFrom keys that are not environment variable names, as Kubernetes does', () => {
    const odd: KeySources = {
      secret: () => undefined,
      configMap: () => ({ stringData: { 'has-dash': 'x', '1digit': 'y', ok_key: 'z' } }),
    };
    expect(resolveSecrets(undefined, odd, [{ configMapRef: { name: 'odd' } }])).toMatchObject({
      ok: true,
      secrets: [{ name: 'ok_key', value: 'z' }],
    });
  });

  it.each([
    [{ configMapRef: { name: 'absent' } }, 'spec.envFrom[1].configMapRef: ConfigMap "absent" not found'],
    [{ secretRef: { name: 'absent' } }, 'spec.envFrom[1].secretRef: Secret "absent" not found'],
  ])('names a missing envFrom source by its field: %j', (missing, message) => {
    expect(resolveSecrets(undefined, sources, [{ secretRef: { name: 'keys' } }, missing])).toEqual({
      ok: false,
      message,
    });
  });

  it('counts envFrom sources among the referenced names', () => {
    const envFrom = [{ secretRef: { name: 'whole-secret' } }, { configMapRef: { name: 'whole-map' } }];
    expect(referencedSecretNames([], envFrom)).toEqual(['whole-secret']);
    expect(referencedConfigMapNames(undefined, envFrom)).toEqual(['whole-map']);
  });
});
