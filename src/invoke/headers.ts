// `invoke --header-from-secret NAME=SECRET/KEY`: headers of the user's own on the call (what an
// agent with custom authentication expects), each value read from a Secret of the object's
// namespace with the user's kubeconfig, never from a flag (it would show in `ps`). The names
// follow spec.smokeTest.headers' rule: an HTTP token, never the platform's own credential,
// scheme, tenant or framing headers.
import { smokeTestHeaderProblem } from '../api/agentdeployment/index.js';
import type { KubeClient } from '../runtime/kube/client.js';
import { KubeApiError } from '../runtime/kube/errors.js';
import type { KubeObject } from '../runtime/kube/objects.js';
import { secretKeyValue, type SecretSource } from '../reconcilers/agentdeployment/secrets.js';
import { TargetError } from './target.js';

const FLAG = '--header-from-secret';
const SECRET_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

export interface HeaderFromSecret {
  name: string;
  secretName: string;
  secretKey: string;
}

/** Parses one flag value; the error names the flag and the rule (a usage error). */
export function parseHeaderFromSecret(value: string): HeaderFromSecret | { problem: string } {
  const shape = `${FLAG} must be NAME=SECRET/KEY (e.g. x-user-token=agent-auth/token)`;
  const equals = value.indexOf('=');
  if (equals <= 0) return { problem: `${shape}; got "${value}"` };
  const name = value.slice(0, equals);
  const [secretName = '', secretKey = '', ...rest] = value.slice(equals + 1).split('/');
  if (rest.length > 0 || !SECRET_NAME.test(secretName) || !SECRET_KEY.test(secretKey)) {
    return { problem: `${shape}; got "${value}"` };
  }
  const problem = smokeTestHeaderProblem(name, FLAG);
  if (problem !== undefined) return { problem };
  return { name, secretName, secretKey };
}

/** The header values, read from `namespace`; a missing Secret or key is one clear error, naming no value. */
export async function readHeaderValues(
  kube: KubeClient,
  namespace: string,
  headers: readonly HeaderFromSecret[],
  signal: AbortSignal,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const header of headers) {
    const where = `${FLAG} ${header.name}: Secret "${namespace}/${header.secretName}"`;
    let secret: SecretSource;
    try {
      secret = await kube.get<KubeObject & SecretSource>(
        { group: '', version: 'v1', plural: 'secrets' },
        namespace,
        header.secretName,
        signal,
      );
    } catch (error) {
      if (error instanceof KubeApiError) {
        throw new TargetError(
          `${where} cannot be read with your kubeconfig (${error.statusCode === 404 ? 'not found' : `${error.statusCode} ${error.reason}`})`,
        );
      }
      throw error;
    }
    const value = secretKeyValue(secret, header.secretKey)?.trim();
    if (value === undefined || value === '')
      throw new TargetError(`${where} has no key "${header.secretKey}" (or it is empty)`);
    values[header.name] = value;
  }
  return values;
}
