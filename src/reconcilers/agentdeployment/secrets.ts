// Resolves spec.secrets to the values the control plane needs: plain values as written,
// references read from Secrets and ConfigMaps of the object's namespace. Values live only in
// the returned list, which goes to the wire and nowhere else; what the status keeps is the
// resourceVersion of each Secret and ConfigMap used, which says "changed" without the value.
import { keySourceOf, toWireSecrets, type SecretReference } from '../../api/agentdeployment/index.js';
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

export function resolveSecrets(
  references: readonly SecretReference[] | undefined,
  sources: KeySources,
): SecretResolution {
  const versions: Record<string, string> = {};
  const read = (kind: 'Secret' | 'ConfigMap', name: string) =>
    kind === 'Secret' ? sources.secret(name) : sources.configMap(name);
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

/** Names of the Secrets an object refers to, for the "objects by secret" index. */
export function referencedSecretNames(references: readonly SecretReference[] | undefined): string[] {
  return referencedNames(references, 'Secret');
}

/** Names of the ConfigMaps an object refers to, for the "objects by ConfigMap" index. */
export function referencedConfigMapNames(references: readonly SecretReference[] | undefined): string[] {
  return referencedNames(references, 'ConfigMap');
}

function referencedNames(
  references: readonly SecretReference[] | undefined,
  kind: 'Secret' | 'ConfigMap',
): string[] {
  const names = (references ?? []).flatMap((reference) => {
    const source = keySourceOf(reference);
    return source?.kind === kind ? [source.name] : [];
  });
  return [...new Set(names)];
}
