// The emulators' own transcription of the error bodies of the control-plane and platform data
// APIs (FastAPI's HTTPValidationError and `{"detail": "..."}`), written from the API documents.
// test/emulator-schemas/transcriptions.unit.test.ts checks it against the client's models.
import { z } from 'zod';

/** One entry of a 422 answer's `detail`: where (`loc`), what (`msg`) and which rule (`type`). */
export const ValidationErrorSchema = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export type ValidationError = z.infer<typeof ValidationErrorSchema>;

/** The 422 body. */
export const HttpValidationErrorSchema = z.object({ detail: z.array(ValidationErrorSchema) });

/** The 400, 404, 409 and 429 bodies. */
export const DetailErrorSchema = z.object({ detail: z.string() });
