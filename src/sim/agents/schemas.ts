// Request bodies the runtime accepts, with the real server's field names. Unknown fields
// are ignored, as there; a malformed body is a 400 that names the field.
import { z } from 'zod';
import { zodFailure } from './runtime-error.js';

export const STREAM_MODES = [
  'values',
  'updates',
  'messages',
  'messages-tuple',
  'custom',
  'events',
  'debug',
  'tasks',
  'checkpoints',
] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

export const MULTITASK_STRATEGIES = ['reject', 'interrupt', 'rollback', 'enqueue'] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

const textPart = z.object({ type: z.string(), text: z.string().optional() });

/** Both the spec's `{role, content}` and LangChain's `{type, content}` spellings. */
export const MESSAGE_ROLES = ['user', 'human', 'assistant', 'ai', 'system', 'developer', 'tool'] as const;

export const InputMessage = z
  .object({
    role: z.enum(MESSAGE_ROLES).optional(),
    type: z.enum(MESSAGE_ROLES).optional(),
    content: z.union([z.string(), z.array(textPart)]),
    id: z.string().optional(),
  })
  .refine((message) => message.role !== undefined || message.type !== undefined, {
    message: 'a message needs a role (or a type)',
    path: ['role'],
  });
export type InputMessage = z.infer<typeof InputMessage>;

const metadata = z.record(z.string(), z.unknown());

export const RunCreate = z.object({
  assistant_id: z.string().min(1),
  input: z
    .object({ messages: z.array(InputMessage).optional() })
    .catchall(z.unknown())
    .nullish(),
  metadata: metadata.nullish(),
  config: metadata.nullish(),
  stream_mode: z.union([z.enum(STREAM_MODES), z.array(z.enum(STREAM_MODES))]).nullish(),
  multitask_strategy: z.enum(MULTITASK_STRATEGIES).nullish(),
  on_disconnect: z.enum(['cancel', 'continue']).nullish(),
  if_not_exists: z.enum(['create', 'reject']).nullish(),
});
export type RunCreate = z.infer<typeof RunCreate>;

export const ThreadCreate = z.object({
  thread_id: z.uuid().nullish(),
  metadata: metadata.nullish(),
  if_exists: z.enum(['raise', 'do_nothing']).nullish(),
});

export const ThreadSearch = z.object({
  ids: z.array(z.uuid()).nullish(),
  metadata: metadata.nullish(),
  status: z.enum(['idle', 'busy', 'interrupted', 'error']).nullish(),
  limit: z.number().int().min(1).max(1000).nullish(),
  offset: z.number().int().min(0).nullish(),
});

export const HistoryRequest = z.object({
  limit: z.number().int().min(1).max(1000).nullish(),
  before: z.unknown().optional(),
});

export const AssistantSearch = z.object({
  graph_id: z.string().nullish(),
  name: z.string().nullish(),
  metadata: metadata.nullish(),
  limit: z.number().int().min(1).max(1000).nullish(),
  offset: z.number().int().min(0).nullish(),
});

export const ThreadIdParam = z.object({ thread_id: z.uuid() });

export function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw zodFailure(result.error.issues);
  return result.data;
}
