// Threads of one deployment: their metadata, status, current values, checkpoints (one per
// step, oldest first) and runs. Views turn them into the real server's response shapes.
import { randomUUID } from 'node:crypto';
import type { StoredMessage } from './messages.js';

export type ThreadStatus = 'idle' | 'busy' | 'interrupted' | 'error';
export type RunStatus = 'pending' | 'running' | 'error' | 'success' | 'timeout' | 'interrupted';

export interface AgentValues {
  messages: StoredMessage[];
}

export interface CheckpointRecord {
  checkpointId: string;
  values: AgentValues;
  next: string[];
  tasks: unknown[];
  metadata: Record<string, unknown>;
  createdAt: string;
  parentId: string | null;
}

export interface RunRecord {
  run_id: string;
  thread_id: string | null;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: Record<string, unknown>;
  multitask_strategy: string;
  kwargs: Record<string, unknown>;
}

export interface ThreadRecord {
  threadId: string;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
  status: ThreadStatus;
  values: AgentValues | null;
  checkpoints: CheckpointRecord[];
  runs: Map<string, RunRecord>;
  /** Whether the thread is kept after its run (false for the scratch thread of a stateless run). */
  persistent: boolean;
}

export function newThread(
  threadId: string,
  metadata: Record<string, unknown>,
  persistent: boolean,
): ThreadRecord {
  const now = new Date().toISOString();
  return {
    threadId,
    createdAt: now,
    updatedAt: now,
    metadata,
    status: 'idle',
    values: null,
    checkpoints: [],
    runs: new Map(),
    persistent,
  };
}

export function addCheckpoint(
  thread: ThreadRecord,
  fields: Pick<CheckpointRecord, 'values' | 'next' | 'tasks' | 'metadata'>,
): void {
  const parent = thread.checkpoints[thread.checkpoints.length - 1];
  const createdAt = new Date().toISOString();
  thread.checkpoints.push({
    ...fields,
    checkpointId: randomUUID(),
    createdAt,
    parentId: parent?.checkpointId ?? null,
  });
  thread.values = fields.values;
  thread.updatedAt = createdAt;
}

export function threadView(thread: ThreadRecord): Record<string, unknown> {
  return {
    thread_id: thread.threadId,
    created_at: thread.createdAt,
    updated_at: thread.updatedAt,
    metadata: thread.metadata,
    status: thread.status,
    config: {},
    ...(thread.values ? { values: thread.values } : {}),
    interrupts: {},
  };
}

function checkpointRef(threadId: string, checkpointId: string | null): Record<string, unknown> {
  return { thread_id: threadId, checkpoint_id: checkpointId, checkpoint_ns: '', checkpoint_map: null };
}

function stateOf(thread: ThreadRecord, checkpoint: CheckpointRecord): Record<string, unknown> {
  return {
    values: checkpoint.values,
    next: checkpoint.next,
    tasks: checkpoint.tasks,
    metadata: checkpoint.metadata,
    created_at: checkpoint.createdAt,
    checkpoint: checkpointRef(thread.threadId, checkpoint.checkpointId),
    parent_checkpoint:
      checkpoint.parentId === null ? null : checkpointRef(thread.threadId, checkpoint.parentId),
  };
}

export function stateView(thread: ThreadRecord): Record<string, unknown> {
  const latest = thread.checkpoints[thread.checkpoints.length - 1];
  if (latest) return stateOf(thread, latest);
  return {
    values: {},
    next: [],
    tasks: [],
    metadata: {},
    created_at: null,
    checkpoint: checkpointRef(thread.threadId, null),
    parent_checkpoint: null,
  };
}

/** Checkpoints newest first, as the history endpoint answers. */
export function historyView(thread: ThreadRecord, limit: number): Record<string, unknown>[] {
  return thread.checkpoints
    .slice(-limit)
    .reverse()
    .map((checkpoint) => stateOf(thread, checkpoint));
}
