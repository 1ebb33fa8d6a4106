// The runtime's resource routes: health, info, the one assistant (graph `agent`), and
// threads (create, search, get, delete, state, history, their runs).
import { randomUUID } from 'node:crypto';
import { ASSISTANT_ID, GRAPH_ID } from './agent.js';
import type { RuntimeContext } from './context.js';
import { writeJson } from './http-io.js';
import { RuntimeHttpError, assistantNotFound, threadNotFound } from './runtime-error.js';
import {
  AssistantSearch,
  HistoryRequest,
  ThreadCreate,
  ThreadIdParam,
  ThreadSearch,
  parse,
} from './schemas.js';
import { historyView, newThread, stateView, threadView, type ThreadRecord } from './threads.js';

const DEFAULT_PAGE = 10;

function matchesMetadata(
  metadata: Record<string, unknown>,
  filter: Record<string, unknown> | null | undefined,
): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(
    ([key, value]) => JSON.stringify(metadata[key]) === JSON.stringify(value),
  );
}

export function resolveAssistant(assistantId: string): string {
  if (assistantId === GRAPH_ID || assistantId.toLowerCase() === ASSISTANT_ID) return ASSISTANT_ID;
  throw assistantNotFound(assistantId);
}

export function findThread(ctx: RuntimeContext): ThreadRecord {
  const { thread_id: threadId } = parse(ThreadIdParam, ctx.params);
  const thread = ctx.state.threads.get(threadId.toLowerCase());
  if (!thread) throw threadNotFound(threadId);
  return thread;
}

function assistantView(ctx: RuntimeContext): Record<string, unknown> {
  return {
    assistant_id: ASSISTANT_ID,
    graph_id: GRAPH_ID,
    config: {},
    context: {},
    metadata: { created_by: 'system' },
    name: GRAPH_ID,
    description: null,
    version: 1,
    created_at: ctx.state.createdAt,
    updated_at: ctx.state.createdAt,
  };
}

export const resourceHandlers = {
  ok(ctx: RuntimeContext): void {
    writeJson(ctx.res, 200, { ok: true });
  },

  getAssistant(ctx: RuntimeContext): void {
    resolveAssistant(ctx.params.assistant_id ?? '');
    writeJson(ctx.res, 200, assistantView(ctx));
  },

  searchAssistants(ctx: RuntimeContext): void {
    const query = parse(AssistantSearch, ctx.body ?? {});
    const assistant = assistantView(ctx);
    const matches =
      (query.graph_id == null || query.graph_id === GRAPH_ID) &&
      (query.name == null || GRAPH_ID.includes(query.name)) &&
      matchesMetadata({ created_by: 'system' }, query.metadata);
    const all = matches ? [assistant] : [];
    const offset = query.offset ?? 0;
    const page = all.slice(offset, offset + (query.limit ?? DEFAULT_PAGE));
    writeJson(ctx.res, 200, page, { 'x-pagination-total': String(all.length) });
  },

  createThread(ctx: RuntimeContext): void {
    const request = parse(ThreadCreate, ctx.body ?? {});
    const threadId = (request.thread_id ?? randomUUID()).toLowerCase();
    const existing = ctx.state.threads.get(threadId);
    if (existing) {
      if (request.if_exists === 'do_nothing') return writeJson(ctx.res, 200, threadView(existing));
      throw new RuntimeHttpError(409, `Thread with ID ${threadId} already exists`);
    }
    const thread = newThread(threadId, { ...request.metadata }, true);
    ctx.state.threads.set(threadId, thread);
    writeJson(ctx.res, 200, threadView(thread));
  },

  searchThreads(ctx: RuntimeContext): void {
    const query = parse(ThreadSearch, ctx.body ?? {});
    const ids = query.ids ? new Set(query.ids.map((id) => id.toLowerCase())) : null;
    const found = [...ctx.state.threads.values()]
      .filter((thread) => ids === null || ids.has(thread.threadId))
      .filter((thread) => query.status == null || thread.status === query.status)
      .filter((thread) => matchesMetadata(thread.metadata, query.metadata))
      .reverse();
    const offset = query.offset ?? 0;
    writeJson(ctx.res, 200, found.slice(offset, offset + (query.limit ?? DEFAULT_PAGE)).map(threadView), {
      'x-pagination-total': String(found.length),
    });
  },

  getThread(ctx: RuntimeContext): void {
    writeJson(ctx.res, 200, threadView(findThread(ctx)));
  },

  deleteThread(ctx: RuntimeContext): void {
    const thread = findThread(ctx);
    ctx.state.threads.delete(thread.threadId);
    ctx.res.writeHead(204).end();
  },

  getState(ctx: RuntimeContext): void {
    writeJson(ctx.res, 200, stateView(findThread(ctx)));
  },

  history(ctx: RuntimeContext): void {
    const thread = findThread(ctx);
    const request = parse(HistoryRequest, ctx.body ?? {});
    writeJson(ctx.res, 200, historyView(thread, request.limit ?? DEFAULT_PAGE));
  },

  listRuns(ctx: RuntimeContext): void {
    const runs = [...findThread(ctx).runs.values()].reverse();
    writeJson(ctx.res, 200, runs);
  },

  getRun(ctx: RuntimeContext): void {
    const run = findThread(ctx).runs.get((ctx.params.run_id ?? '').toLowerCase());
    if (!run) throw new RuntimeHttpError(404, 'Run not found');
    writeJson(ctx.res, 200, run);
  },
};
