// The reconciler's AgentCallPort on the runtime client (the official SDK): stateless runs
// to a deployed agent with the operator's key. Today every object uses the default
// connection's key (the operator's --api-key-file / AGENT_OPERATOR_API_KEY); a per-object
// connection will choose the key here, from `objectKey`, without the reconciler changing.
import { AgentRuntimeClient } from '../agentruntime/client.js';
import { redact } from '../agentruntime/errors.js';
import type { AgentCallPort } from '../reconcilers/agentdeployment/ports.js';

export function agentCallPort(apiKeyFor: (objectKey: string) => string): AgentCallPort {
  return {
    runOnce(objectKey, url, input, timeoutMs, signal) {
      const client = new AgentRuntimeClient({ url, apiKey: apiKeyFor(objectKey), timeoutMs });
      return client.wait({ input, signal });
    },
    redact(objectKey, text) {
      return redact(text, apiKeyFor(objectKey));
    },
  };
}
