// spec.smokeTest.headers: headers of the tenant's own on the smoke-test call (what an agent
// with custom authentication expects), their values in Secrets of the object's namespace.
// decide sees only where each value lives and the Secrets' resourceVersions (a change runs the
// test again); the values are read by the agent-call port at call time and go nowhere else.
import type { SmokeTest } from '../../api/agentdeployment/index.js';
import type { SecretSource } from './secrets.js';

/** One header of the call: its name and where its value lives (never the value). */
export interface HeaderRef {
  name: string;
  secretName: string;
  secretKey: string;
}

export function smokeTestHeaderRefs(smokeTest: SmokeTest | undefined): HeaderRef[] {
  return (smokeTest?.headers ?? []).map((header) => ({
    name: header.name,
    secretName: header.valueFrom.secretKeyRef.name,
    secretKey: header.valueFrom.secretKeyRef.key,
  }));
}

/** The Secrets the headers read (each once). */
export function smokeTestHeaderSecretNames(smokeTest: SmokeTest | undefined): string[] {
  return [...new Set(smokeTestHeaderRefs(smokeTest).map((ref) => ref.secretName))];
}

/**
 * The resourceVersion of each header Secret ('' while it is missing): part of the test's
 * digest, so that a changed value runs the test again. A version says "changed" and nothing
 * of the value, the way status.secretVersions tracks spec.secrets.
 */
export function smokeTestHeaderVersions(
  smokeTest: SmokeTest | undefined,
  secret: (name: string) => SecretSource | undefined,
): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const name of smokeTestHeaderSecretNames(smokeTest)) {
    versions[name] = secret(name)?.metadata?.resourceVersion ?? '';
  }
  return versions;
}
