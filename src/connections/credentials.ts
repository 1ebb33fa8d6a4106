// A connection's credential, read from its key Secret: a PlatformConnection's from its own
// namespace, a ClusterPlatformConnection's from the operator's. The value goes into the
// client's headers and nowhere else; what callers may show is the Secret's name and key, the
// Secret's resourceVersion, and the fingerprint.
import type { ConnectionSpec } from '../api/connection/index.js';
import { credentialFingerprint } from '../controlplane/budget/credential-fingerprint.js';
import type { Credentials } from '../controlplane/client/config.js';
import type { SecretSource } from '../reconcilers/agentdeployment/secrets.js';

export type SecretLookup = (namespace: string, name: string) => SecretSource | undefined;

export type CredentialResolution =
  | {
      ok: true;
      credentials: Credentials;
      /** Not reversible to the credential: the identity of its budget. */
      fingerprint: string;
      /** `namespace/name@resourceVersion` of the Secret: changes when the key is rotated. */
      version: string;
    }
  | { ok: false; message: string };

export function resolveCredentials(
  spec: ConnectionSpec,
  secretNamespace: string,
  lookup: SecretLookup,
): CredentialResolution {
  const bearer = spec.apiKeySecretRef === undefined;
  const ref = spec.apiKeySecretRef ?? spec.bearerTokenSecretRef;
  const field = bearer ? 'spec.bearerTokenSecretRef' : 'spec.apiKeySecretRef';
  if (ref === undefined)
    return { ok: false, message: 'spec: no credential (apiKeySecretRef or bearerTokenSecretRef)' };
  const secret = lookup(secretNamespace, ref.name);
  if (secret === undefined) {
    return { ok: false, message: `${field}: Secret "${secretNamespace}/${ref.name}" not found` };
  }
  const plain = secret.stringData?.[ref.key];
  const encoded = secret.data?.[ref.key];
  if (plain === undefined && encoded === undefined) {
    return {
      ok: false,
      message: `${field}: Secret "${secretNamespace}/${ref.name}" has no key "${ref.key}"`,
    };
  }
  const value = (plain ?? Buffer.from(encoded ?? '', 'base64').toString('utf8')).trim();
  if (value === '' || /[\r\n]/.test(value)) {
    return {
      ok: false,
      message: `${field}: key "${ref.key}" of Secret "${secretNamespace}/${ref.name}" is empty or spans several lines`,
    };
  }
  const tenant = spec.tenantId === undefined ? {} : { tenantId: spec.tenantId };
  return {
    ok: true,
    credentials: bearer ? { bearerToken: value, ...tenant } : { apiKey: value, ...tenant },
    fingerprint: credentialFingerprint(value),
    version: `${secretNamespace}/${ref.name}@${secret.metadata?.resourceVersion ?? ''}`,
  };
}
