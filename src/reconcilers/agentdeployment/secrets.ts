// Resolves the spec's secret references to the values the control plane needs. Values live
// only in the returned list, which goes to the wire and nowhere else; what the status keeps
// is the resourceVersion of each Secret used, which says "rotated" without saying the value.
import { toWireSecrets, type SecretReference } from '../../api/agentdeployment/index.js';
import type { Secret } from '../../controlplane/models/index.js';

export interface SecretSource {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export type SecretResolution =
  { ok: true; secrets: Secret[]; versions: Record<string, string> } | { ok: false; message: string };

export function resolveSecrets(
  references: readonly SecretReference[] | undefined,
  lookup: (name: string) => SecretSource | undefined,
): SecretResolution {
  const versions: Record<string, string> = {};
  const resolved = toWireSecrets(references, ({ name, key }) => {
    const source = lookup(name);
    if (!source) return undefined;
    const value = secretKeyValue(source, key);
    if (value !== undefined) versions[name] = source.metadata?.resourceVersion ?? '';
    return value;
  });
  if (resolved.ok) return { ok: true, secrets: resolved.secrets, versions };
  const { env, selector } = resolved.missing;
  const exists = lookup(selector.name) !== undefined;
  return {
    ok: false,
    message: exists
      ? `spec.secrets (${env}): Secret "${selector.name}" has no key "${selector.key}"`
      : `spec.secrets (${env}): Secret "${selector.name}" not found`,
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
  const names = (references ?? []).flatMap((reference) => {
    const name = reference.valueFrom?.secretKeyRef.name;
    return name === undefined ? [] : [name];
  });
  return [...new Set(names)];
}
