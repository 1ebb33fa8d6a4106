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
    const plain = source.stringData?.[key];
    const encoded = source.data?.[key];
    if (plain === undefined && encoded === undefined) return undefined;
    versions[name] = source.metadata?.resourceVersion ?? '';
    return plain ?? Buffer.from(encoded ?? '', 'base64').toString('utf8');
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

/** Names of the Secrets an object refers to, for the "objects by secret" index. */
export function referencedSecretNames(references: readonly SecretReference[] | undefined): string[] {
  return [...new Set((references ?? []).map((reference) => reference.valueFrom.secretKeyRef.name))];
}
