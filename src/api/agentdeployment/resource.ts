// The AgentDeployment object as a whole, and the one rule about it that several parts of
// the operator need: which name the deployment has on the control plane.
import { z } from 'zod';
import { API_VERSION, KIND } from './names.js';
import { AgentDeploymentSpec } from './spec.js';
import { AgentDeploymentStatus } from './status.js';

/** The metadata fields the operator reads; anything else the API server sends is kept. */
export const ObjectMeta = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().int().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
});

export const AgentDeployment = z.object({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal(KIND),
  metadata: ObjectMeta,
  spec: AgentDeploymentSpec,
  status: AgentDeploymentStatus.optional(),
});

export type ObjectMeta = z.infer<typeof ObjectMeta>;
/** An AgentDeployment as stored by the API server (spec defaults applied). */
export type AgentDeployment = z.infer<typeof AgentDeployment>;

/** The control-plane deployment name of an object: `spec.name`, or `metadata.name` when unset. */
export function deploymentName(obj: {
  metadata: { name: string };
  spec: { name?: string | undefined };
}): string {
  return obj.spec.name ?? obj.metadata.name;
}
