// Resolves the spec's secret references to the values the control plane needs. Values live
// only in the returned list, which goes to the wire and nowhere else; what the status keeps
// is the resourceVersion of each Secret used, which says "rotated" without saying the value.
import type { Secret } from '../../controlplane/models/index.js';
import type { SecretReference } from './object.js';

export interface SecretSource {
  metadata?: { resourceVersion?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export type SecretResolution =
  | { ok: true; secrets: Secret[]; versions: Record<string, string> }
  | { ok: false; message: string };

export function resolveSecrets(
  references: readonly SecretReference[] | undefined,
  lookup: (name: string) => SecretSource | undefined,
): SecretResolution {
  const secrets: Secret[] = [];
  const versions: Record<string, string> = {};
  for (const [index, reference] of (references ?? []).entries()) {
    const { name: secretName, key } = reference.valueFrom.secretKeyRef;
    const source = lookup(secretName);
    if (!source) {
      return { ok: false, message: `spec.secrets[${index}] (${reference.name}): Secret "${secretName}" not found` };
    }
    const encoded = source.data?.[key];
    const plain = source.stringData?.[key];
    if (encoded === undefined && plain === undefined) {
      return {
        ok: false,
        message: `spec.secrets[${index}] (${reference.name}): Secret "${secretName}" has no key "${key}"`,
      };
    }
    secrets.push({ name: reference.name, value: plain ?? Buffer.from(encoded ?? '', 'base64').toString('utf8') });
    versions[secretName] = source.metadata?.resourceVersion ?? '';
  }
  return { ok: true, secrets, versions };
}

/** Names of the Secrets an object refers to, for the "objects by secret" index. */
export function referencedSecretNames(references: readonly SecretReference[] | undefined): string[] {
  return [...new Set((references ?? []).map((reference) => reference.valueFrom.secretKeyRef.name))];
}
