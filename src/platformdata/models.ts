// The shapes the operator reads from the platform data API. Only the fields it uses are
// required; the service sends more, which are kept as they come.
import { z } from 'zod';

export const QueriedRun = z.looseObject({ id: z.string(), trace_id: z.string().nullish() });
export type QueriedRun = z.infer<typeof QueriedRun>;

export const RunQueryPage = z.looseObject({
  runs: z.array(QueriedRun),
  cursors: z.looseObject({ next: z.string().nullish() }).nullish(),
});
export type RunQueryPage = z.infer<typeof RunQueryPage>;

export const FoundExample = z.looseObject({
  id: z.string(),
  dataset_id: z.string().nullish(),
  created_at: z.string().nullish(),
});
export type FoundExample = z.infer<typeof FoundExample>;
export const FoundExamples = z.array(FoundExample);

export const ExampleDeleteResult = z.looseObject({
  count: z.number().int(),
  example_ids: z.array(z.string()),
});
export type ExampleDeleteResult = z.infer<typeof ExampleDeleteResult>;

/** The trace delete route answers an empty object; anything JSON is accepted. */
export const TraceDeleteAccepted = z.unknown();

/** A session (tracing project): its id is the session_id trace deletes name. */
export const Session = z.looseObject({ id: z.string(), name: z.string() });
export type Session = z.infer<typeof Session>;
export const Sessions = z.array(Session);
