// An attacker's (or any tenant's) AgentDeployments in a namespace of their own: read one, or
// wait until it shows something. Only NotFound reads as "not there": any other API error
// fails the test rather than passing for a deletion.
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { isNotFound } from '../../src/runtime/kube/errors.js';
import type { AgentDeploymentObject, Stack } from '../operator/harness.js';

export interface TenantObjects {
  get(name: string): Promise<AgentDeploymentObject | undefined>;
  waitFor(
    name: string,
    predicate: (object: AgentDeploymentObject) => boolean,
    what: string,
  ): Promise<AgentDeploymentObject>;
}

export function tenantObjects(stack: () => Stack, namespace: string): TenantObjects {
  const get = async (name: string): Promise<AgentDeploymentObject | undefined> => {
    try {
      return await stack().client.get<AgentDeploymentObject>(AGENT_DEPLOYMENTS, namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  return {
    get,
    async waitFor(name, predicate, what) {
      let last: AgentDeploymentObject | undefined;
      try {
        await stack().waitUntil(async () => {
          last = await get(name);
          return last !== undefined && predicate(last);
        }, `${namespace}/${name} ${what}`);
      } catch (error) {
        throw new Error(`${String(error)}; last status: ${JSON.stringify(last?.status)}`);
      }
      if (last === undefined) throw new Error('unreachable');
      return last;
    },
  };
}
