// Resolves spec.secrets to the values the control plane needs: plain values as written,
// references read from Secrets and ConfigMaps of the object's namespace. Values live only in
// the returned list, which goes to the wire and nowhere else; what the status keeps is the
// resourceVersion of each Secret and ConfigMap used, which says "changed" without the value.
import {
  C_IDENTIFIER_REGEX,
  keySourceOf,
  toWireSecrets,
  type EnvFromSource,
  type SecretReference,
} from '../../api/agentdeployment/index.js';
import type { Secret } from '../../controlplane/models/index.js';

export interface SecretSource {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** Where the referenced objects' values are read (from the caches the reconcile loaded). */
export interface KeySources {
  secret: (name: string) => SecretSource | undefined;
  /** A ConfigMap's data as `stringData`, its binaryData as `data` (base64, as a Secret's). */
  configMap: (name: string) => SecretSource | undefined;
}

export type SecretResolution =
  { ok: true; secrets: Secret[]; versions: Record<string, string> } | { ok: false; message: string };

/**
 * The key under which a referenced object's resourceVersion is recorded: a Secret by its
 * name (as before ConfigMaps existed, so recorded versions stay valid), a ConfigMap as
 * `ConfigMap/<name>` (a slash never occurs in an object name).
 */
export function versionKey(kind: 'Secret' | 'ConfigMap', name: string): string {
  return kind === 'Secret' ? name : `ConfigMap/${name}`;
}

const ENV_NAME = new RegExp(C_IDENTIFIER_REGEX);

/**
 * spec.envFrom and spec.secrets as the wire's secrets. envFrom sources come first, each key
 * (sorted, for a stable request) as prefix + key, a later source winning a name; keys that
 * are not C identifiers are skipped, as Kubernetes does. spec.secrets follow in spec order and
 * win over envFrom, as `env` wins over `envFrom` in a Pod.
 */
export function resolveSecrets(
  references: readonly SecretReference[] | undefined,
  sources: KeySources,
  envFrom: readonly EnvFromSource[] = [],
): SecretResolution {
  // No spec.secrets and no spec.envFrom (most specs): nothing to read, none of the machinery.
  if ((references === undefined || references.length === 0) && envFrom.length === 0)
    return { ok: true, secrets: [], versions: {} };
  const versions: Record<string, string> = {};
  const read = (kind: 'Secret' | 'ConfigMap', name: string) =>
    kind === 'Secret' ? sources.secret(name) : sources.configMap(name);
  const expanded = new Map<string, string>();
  for (const [index, entry] of envFrom.entries()) {
    const kind = entry.secretRef ? 'Secret' : 'ConfigMap';
    const name = (entry.secretRef ?? entry.configMapRef)?.name ?? '';
    const source = read(kind, name);
    if (!source) {
      const field = kind === 'Secret' ? 'secretRef' : 'configMapRef';
      return { ok: false, message: `spec.envFrom[${index}].${field}: ${kind} "${name}" not found` };
    }
    versions[versionKey(kind, name)] = source.metadata?.resourceVersion ?? '';
    const keys = [...new Set([...Object.keys(source.data ?? {}), ...Object.keys(source.stringData ?? {})])];
    for (const key of keys.sort()) {
      const variable = `${entry.prefix ?? ''}${key}`;
      const value = secretKeyValue(source, key);
      if (!ENV_NAME.test(variable) || value === undefined) continue;
      expanded.delete(variable);
      expanded.set(variable, value);
    }
  }
  const explicit = resolveReferences(references, read, versions);
  if (!explicit.ok) return explicit;
  const overridden = new Set(explicit.secrets.map((secret) => secret.name));
  const fromEnvFrom = [...expanded]
    .filter(([name]) => !overridden.has(name))
    .map(([name, value]) => ({ name, value }));
  return { ok: true, secrets: [...fromEnvFrom, ...explicit.secrets], versions };
}

function resolveReferences(
  references: readonly SecretReference[] | undefined,
  read: (kind: 'Secret' | 'ConfigMap', name: string) => SecretSource | undefined,
  versions: Record<string, string>,
): SecretResolution {
  const resolved = toWireSecrets(references, ({ kind, name, key }) => {
    const source = read(kind, name);
    if (!source) return undefined;
    const value = secretKeyValue(source, key);
    if (value !== undefined) versions[versionKey(kind, name)] = source.metadata?.resourceVersion ?? '';
    return value;
  });
  if (resolved.ok) return { ok: true, secrets: resolved.secrets, versions };
  const { env, source } = resolved.missing;
  const field = source.kind === 'Secret' ? 'secretKeyRef' : 'configMapKeyRef';
  const exists = read(source.kind, source.name) !== undefined;
  return {
    ok: false,
    message: exists
      ? `spec.secrets (${env}, valueFrom.${field}): ${source.kind} "${source.name}" has no key "${source.key}"`
      : `spec.secrets (${env}, valueFrom.${field}): ${source.kind} "${source.name}" not found`,
  };
}

/** One key's value of a Secret (stringData first, as the API server merges it), or undefined. */
export function secretKeyValue(source: SecretSource, key: string): string | undefined {
  const plain = source.stringData?.[key];
  if (plain !== undefined) return plain;
  const encoded = source.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('utf8');
}

/** Names of the Secrets an object refers to (spec.secrets, spec.envFrom), for the "objects by secret" index. */
export function referencedSecretNames(
  references: readonly SecretReference[] | undefined,
  envFrom: readonly EnvFromSource[] = [],
): string[] {
  return referencedNames(references, envFrom, 'Secret');
}

/** Names of the ConfigMaps an object refers to (spec.secrets, spec.envFrom), for the "objects by ConfigMap" index. */
export function referencedConfigMapNames(
  references: readonly SecretReference[] | undefined,
  envFrom: readonly EnvFromSource[] = [],
): string[] {
  return referencedNames(references, envFrom, 'ConfigMap');
}

function referencedNames(
  references: readonly SecretReference[] | undefined,
  envFrom: readonly EnvFromSource[],
  kind: 'Secret' | 'ConfigMap',
): string[] {
  const names = (references ?? []).flatMap((reference) => {
    const source = keySourceOf(reference);
    return source?.kind === kind ? [source.name] : [];
  });
  for (const entry of envFrom) {
    const ref = kind === 'Secret' ? entry.secretRef : entry.configMapRef;
    if (ref) names.push(ref.name);
  }
  return [...new Set(names)];
}
