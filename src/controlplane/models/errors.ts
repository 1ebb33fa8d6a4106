// Error bodies (docs/api/control-plane.md, "Errors").
import { z } from 'zod';

export const ValidationError = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export const HTTPValidationError = z.object({ detail: z.array(ValidationError) });
/** 400, 404 and 429 bodies: `{"detail": "..."}`. */
export const DetailError = z.object({ detail: z.string() });

export type ValidationError = z.infer<typeof ValidationError>;
export type HTTPValidationError = z.infer<typeof HTTPValidationError>;
export type DetailError = z.infer<typeof DetailError>;
