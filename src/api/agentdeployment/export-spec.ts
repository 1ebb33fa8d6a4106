// spec.export: hand the agent to other workloads of the namespace. The operator writes the
// facts a client needs to call the agent (its URL, the deployment and revision ids) into a
// ConfigMap of the object's own namespace, owned by the object, in the style of Crossplane's
// writeConnectionSecretToRef. Nothing the operator knows of an agent is secret, and the
// connection's key must never be copied into a tenant's namespace, so there is no Secret form.
import { z } from 'zod';
import { localObjectName } from './secret-key-selector.js';

export const ExportSpec = z
  .object({
    configMapName: localObjectName('ConfigMap').describe(
      'The ConfigMap to write, in the namespace of this AgentDeployment. The operator creates it, owns it (it goes with this object) and keeps it up to date; it never touches a ConfigMap of that name it did not create.',
    ),
  })
  .describe(
    'Writes how to reach the agent (AGENT_URL, DEPLOYMENT_ID, DEPLOYMENT_NAME, ACTIVE_REVISION_ID) into a ConfigMap of this namespace, for other workloads to read (envFrom, configMapKeyRef). Removing it deletes the ConfigMap the operator wrote.',
  );

export type ExportSpec = z.infer<typeof ExportSpec>;
