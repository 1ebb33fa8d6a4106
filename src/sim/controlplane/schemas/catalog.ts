// The emulator's transcription of the listener and integration records and the list envelope,
// from the reference notes (the API document only names the endpoints that list them).
import { z } from 'zod';

/** The compute types a listener can have; `cluster` is the one with namespaces. */
export const COMPUTE_TYPES = ['cluster', 'serverless'] as const;

const dateTime = z.iso.datetime({ offset: true });

export const Listener = z.object({
  id: z.uuid(),
  compute_type: z.enum(COMPUTE_TYPES),
  compute_id: z.string(),
  compute_config: z.object({ cluster_namespaces: z.array(z.string()) }),
  created_at: dateTime,
  updated_at: dateTime,
});

export const Integration = z.object({
  id: z.uuid(),
  installation_id: z.union([z.string(), z.number()]),
  name: z.string(),
});

/** `limit=1..100 (default 20)`. */
export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** `{"resources": [...], "offset": N}`. */
export function Page<T extends z.ZodType>(item: T) {
  return z.object({ resources: z.array(item), offset: z.number().int() });
}
