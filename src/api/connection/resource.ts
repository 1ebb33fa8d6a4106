// The connection objects as the operator reads them.
import { z } from 'zod';
import { ObjectMeta } from '../agentdeployment/resource.js';
import { CONNECTION_API_VERSION, CONNECTION_KINDS } from './names.js';
import { ClusterPlatformConnectionSpec } from './spec.js';
import { ConnectionStatus } from './status.js';

export const PlatformConnectionObject = z.object({
  apiVersion: z.literal(CONNECTION_API_VERSION),
  kind: z.enum(CONNECTION_KINDS),
  metadata: ObjectMeta,
  spec: ClusterPlatformConnectionSpec,
  status: ConnectionStatus.optional(),
});

/** Either kind; `metadata.namespace` is absent for a ClusterPlatformConnection. */
export type PlatformConnectionObject = z.infer<typeof PlatformConnectionObject>;
