// The list envelope of the production service: `{"resources": [...], "offset": N}`.
import { z } from 'zod';

export function Page<T extends z.ZodType>(item: T) {
  return z.object({ resources: z.array(item), offset: z.number().int() });
}

export const LIST_LIMIT = { min: 1, max: 100, default: 20 } as const;
