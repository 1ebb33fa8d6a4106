// Messages as the runtime stores and returns them: LangChain's dict form. Input
// `{role: "user", content}` becomes `{type: "human", ...}`; the agent's reply is an `ai` one.
import { randomUUID } from 'node:crypto';
import type { InputMessage } from './schemas.js';

export interface StoredMessage {
  type: string;
  content: string | unknown[];
  id: string;
  additional_kwargs: Record<string, never>;
  response_metadata: Record<string, never>;
  tool_calls?: never[];
  invalid_tool_calls?: never[];
}

const TYPE_OF_ROLE: Readonly<Record<string, string>> = {
  user: 'human',
  human: 'human',
  assistant: 'ai',
  ai: 'ai',
  system: 'system',
  developer: 'system',
  tool: 'tool',
};

export function storedMessage(input: InputMessage): StoredMessage {
  const role = input.type ?? input.role ?? 'user';
  return {
    type: TYPE_OF_ROLE[role] ?? 'human',
    content: input.content,
    id: input.id ?? randomUUID(),
    additional_kwargs: {},
    response_metadata: {},
  };
}

export function aiMessage(content: string): StoredMessage {
  return {
    type: 'ai',
    content,
    id: randomUUID(),
    additional_kwargs: {},
    response_metadata: {},
    tool_calls: [],
    invalid_tool_calls: [],
  };
}

/** The text of a message: its string content, or its text parts joined. */
export function textOf(message: StoredMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) =>
      typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string'
        ? part.text
        : '',
    )
    .join('');
}
