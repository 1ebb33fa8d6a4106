// Listener and repository-host integration records (docs/api/control-plane.md,
// "Listener and integration"; the published interface only names the endpoints that list them).
import { z } from 'zod';

export const COMPUTE_TYPES = ['cluster', 'serverless'] as const;

export const Listener = z.object({
  id: z.uuid(),
  compute_type: z.string(),
  compute_id: z.string(),
  compute_config: z.object({ cluster_namespaces: z.array(z.string()) }),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
});
export type Listener = z.infer<typeof Listener>;

export const Integration = z.object({
  id: z.uuid(),
  installation_id: z.union([z.string(), z.number()]),
  name: z.string(),
});
export type Integration = z.infer<typeof Integration>;
export const IntegrationList = z.array(Integration);
