// The emulated agent (graph `agent`): deterministic, so pipelines can assert on it. It
// answers the last human message with a reply that quotes it and names the revision that
// answers, so a test sees a rollout go live. `sleep:<ms>` delays the reply; `raise:<text>`
// makes the graph fail with <text>, as a graph that throws would.
import type { AgentRevision } from './directory.js';
import { textOf, type StoredMessage } from './messages.js';

export const GRAPH_ID = 'agent';
/** uuid5(graph id, 6ba7b821-9dad-11d1-80b4-00c04fd430c8), as the real server derives it. */
export const ASSISTANT_ID = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca';
/** The node that answers; `updates` events are keyed by it. */
export const NODE_NAME = 'agent';
/** A `sleep:` longer than this is cut to it, so a typo cannot hold a run for days. */
export const MAX_SLEEP_MS = 600_000;
/** The class name a raised error reports, as a graph's `throw new Error(text)` would. */
export const RAISED_ERROR_CLASS = 'Error';

export type AgentPlan =
  | { kind: 'reply'; delayMs: number; content: string }
  | { kind: 'raise'; delayMs: number; message: string }
  | { kind: 'nothing' };

export function describeRevision(revision: AgentRevision): string {
  if (revision.imageUri !== null) return `image ${revision.imageUri}`;
  if (revision.repoRef !== null) return `${revision.repoRef}@${revision.commitSha ?? 'unknown'}`;
  return revision.source;
}

export function planReply(messages: readonly StoredMessage[], revision: AgentRevision): AgentPlan {
  const humans = messages.filter((message) => message.type === 'human');
  const last = humans[humans.length - 1];
  if (last === undefined) return { kind: 'nothing' };
  const text = textOf(last);
  const raised = /^raise:([\s\S]*)$/.exec(text);
  if (raised) return { kind: 'raise', delayMs: 0, message: raised[1] ?? '' };
  const sleep = /^sleep:(\d+)/.exec(text);
  const delayMs = sleep ? Math.min(Number(sleep[1]), MAX_SLEEP_MS) : 0;
  const content =
    `You said: ${text}. ` +
    `Answered by revision ${revision.id} (${describeRevision(revision)}), message ${humans.length} of this conversation.`;
  return { kind: 'reply', delayMs, content };
}
