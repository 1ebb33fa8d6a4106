// Finds the agent an AgentDeployment stands for: the object, read with the user's kubeconfig,
// then the agent's address in its status. `status.url` is the address the operator
// publishes once the latest revision serves (and passed its smoke test, if any); objects
// written before it existed carry only `status.customUrl` (the deployment's custom_url),
// which is read as a fallback.
import { GROUP, PLURAL, VERSION } from '../api/agentdeployment/names.js';
import type { KubeClient } from '../runtime/kube/client.js';
import { isNotFound } from '../runtime/kube/errors.js';
import type { KubeObject } from '../runtime/kube/objects.js';

export interface AgentTarget {
  /** The AgentDeployment as read (its spec.connectionRef decides the key). */
  object: KubeObject;
  url: string;
  /** status.deploymentId, when the operator recorded it. */
  deploymentId?: string;
}

export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** status.url first, then status.customUrl; undefined while neither is set. */
export function agentUrlOf(object: KubeObject): string | undefined {
  const status = (object as { status?: { url?: unknown; customUrl?: unknown } }).status;
  for (const candidate of [status?.url, status?.customUrl]) {
    if (typeof candidate === 'string' && candidate !== '') return candidate;
  }
  return undefined;
}

export async function findAgent(
  client: KubeClient,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<AgentTarget> {
  let object: KubeObject;
  try {
    object = await client.get({ group: GROUP, version: VERSION, plural: PLURAL }, namespace, name, signal);
  } catch (error) {
    if (isNotFound(error))
      throw new TargetError(`agentdeployment "${name}" not found in namespace "${namespace}"`);
    throw new TargetError(
      `cannot read agentdeployment ${namespace}/${name}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const url = agentUrlOf(object);
  if (url === undefined) {
    throw new TargetError(
      `agentdeployment ${namespace}/${name} has no agent URL yet (status.url and status.customUrl are empty); wait until it is Ready`,
    );
  }
  const deploymentId = (object as { status?: { deploymentId?: unknown } }).status?.deploymentId;
  return {
    object,
    url,
    ...(typeof deploymentId === 'string' && deploymentId !== '' ? { deploymentId } : {}),
  };
}
