// The run routes: /runs/wait and /runs/stream, stateless or on a thread. `wait` answers
// 200 text/plain at once and sends a newline every second while the run is in progress,
// then the final values (or `{"__error__": ...}`); `stream` sends the `metadata` event
// first, then each event as the run produces it, and ends when the run does.
import { randomUUID } from 'node:crypto';
import { GRAPH_ID } from './agent.js';
import type { RuntimeContext } from './context.js';
import type { AgentTrace, HostedDeployment } from './directory.js';
import { COMMON_HEADERS, toJson, writeJson } from './http-io.js';
import { storedMessage } from './messages.js';
import { findThread, resolveAssistant } from './resource-handlers.js';
import { RuntimeHttpError } from './runtime-error.js';
import { RunCoordinator, type EmitEvent, type RunExecution, type RunOutcome } from './runs.js';
import { RunCreate, ThreadIdParam, parse, type StreamMode } from './schemas.js';
import { SseWriter } from './sse.js';
import { newThread, type ThreadRecord } from './threads.js';

const KEEP_ALIVE_MS = 1000;

function waitBody(outcome: RunOutcome): unknown {
  return outcome.status === 'error' ? { __error__: outcome.error } : outcome.values;
}

/** Hears of each finished run, for the platform to trace it in the deployment's project. */
export type TraceSink = (deployment: HostedDeployment, trace: AgentTrace) => void;

export class RunHandlers {
  private readonly coordinator: RunCoordinator;
  /** Background runs in flight, so that a join can wait for them. */
  private readonly background = new Map<string, RunExecution>();

  constructor(
    reportRunFailure: (error: unknown) => void,
    private readonly recordTrace: TraceSink = () => undefined,
  ) {
    this.coordinator = new RunCoordinator(reportRunFailure);
  }

  private thread(
    ctx: RuntimeContext,
    stateful: boolean,
    ifNotExists: string | null | undefined,
  ): ThreadRecord {
    if (!stateful) return newThread(randomUUID(), {}, false);
    if (ifNotExists === 'create') {
      const { thread_id: threadId } = parse(ThreadIdParam, ctx.params);
      const id = threadId.toLowerCase();
      const existing = ctx.state.threads.get(id);
      if (existing) return existing;
      const created = newThread(id, {}, true);
      ctx.state.threads.set(id, created);
      return created;
    }
    return findThread(ctx);
  }

  private start(
    ctx: RuntimeContext,
    stateful: boolean,
    emit: EmitEvent,
  ): { run: RunExecution; location: string } {
    const request = parse(RunCreate, ctx.body);
    const assistantId = resolveAssistant(request.assistant_id);
    const thread = this.thread(ctx, stateful, request.if_not_exists);
    const modes = request.stream_mode ?? 'values';
    const streamModes: StreamMode[] = Array.isArray(modes)
      ? modes.length > 0
        ? modes
        : ['values']
      : [modes];
    const run = this.coordinator.start({
      runId: randomUUID(),
      thread,
      assistantId,
      input: (request.input?.messages ?? []).map(storedMessage),
      streamModes,
      // The hosted service's default; the open-source server defaults to reject.
      multitaskStrategy: request.multitask_strategy ?? 'enqueue',
      metadata: { ...request.metadata },
      revision: ctx.revision,
      emit,
    });
    if (thread.persistent) Object.assign(thread.metadata, { graph_id: GRAPH_ID, assistant_id: assistantId });
    this.traceWhenDone(ctx, run, thread, request.input ?? {}, Date.now());
    if (request.on_disconnect === 'cancel') {
      ctx.res.once('close', () => {
        if (!ctx.res.writableFinished) run.cancel('interrupt');
      });
    }
    const location = stateful
      ? `/threads/${thread.threadId}/runs/${run.record.run_id}`
      : `/runs/${run.record.run_id}`;
    return { run, location };
  }

  /** The finished run as a trace of the deployment's project (a failed run is the coordinator's to report). */
  private traceWhenDone(
    ctx: RuntimeContext,
    run: RunExecution,
    thread: ThreadRecord,
    inputs: Record<string, unknown>,
    startedAt: number,
  ): void {
    run.done.then(
      (outcome) =>
        this.recordTrace(ctx.deployment, {
          runId: run.record.run_id,
          threadId: thread.persistent ? thread.threadId : null,
          startedAt,
          endedAt: Date.now(),
          status: outcome.status,
          inputs,
          outputs: outcome.status === 'success' ? { ...outcome.values } : null,
          error: outcome.status === 'error' ? `${outcome.error.error}: ${outcome.error.message}` : null,
          metadata: run.record.metadata,
        }),
      () => undefined,
    );
  }

  private async wait(ctx: RuntimeContext, stateful: boolean): Promise<void> {
    const { run, location } = this.start(ctx, stateful, () => undefined);
    const { res } = ctx;
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': 'text/plain; charset=UTF-8',
      'content-location': location,
    });
    const keepAlive = setInterval(() => res.write('\n'), KEEP_ALIVE_MS);
    // A client that went away needs no keep-alives; the run itself goes on.
    res.once('close', () => clearInterval(keepAlive));
    try {
      const outcome = await run.done;
      if (!res.writableEnded && !res.destroyed) res.end(toJson(waitBody(outcome)));
    } finally {
      clearInterval(keepAlive);
    }
  }

  private async stream(ctx: RuntimeContext, stateful: boolean): Promise<void> {
    const sse = new SseWriter(ctx.res, stateful);
    const { run, location } = this.start(ctx, stateful, sse.event);
    sse.open(location);
    sse.event('metadata', { run_id: run.record.run_id, attempt: 1 });
    await run.done;
    sse.end();
  }

  /** A background run: answers its record at once; the run goes on and can be joined. */
  private create(ctx: RuntimeContext, stateful: boolean): void {
    const { run, location } = this.start(ctx, stateful, () => undefined);
    this.background.set(run.record.run_id, run);
    // The coordinator reports a failed run; here it only has to leave the list either way.
    const forget = (): void => void this.background.delete(run.record.run_id);
    run.done.then(forget, forget);
    writeJson(ctx.res, 200, run.record, { 'content-location': location });
  }

  /** Waits for a thread's run and answers like /wait; a finished run answers the thread's values. */
  join = async (ctx: RuntimeContext): Promise<void> => {
    const thread = findThread(ctx);
    const runId = (ctx.params.run_id ?? '').toLowerCase();
    if (!thread.runs.has(runId)) throw new RuntimeHttpError(404, 'Run not found');
    const running = this.background.get(runId);
    const body = running ? waitBody(await running.done) : (thread.values ?? {});
    writeJson(ctx.res, 200, body);
  };

  statelessCreate = (ctx: RuntimeContext): void => this.create(ctx, false);
  threadCreate = (ctx: RuntimeContext): void => this.create(ctx, true);
  statelessWait = (ctx: RuntimeContext): Promise<void> => this.wait(ctx, false);
  statelessStream = (ctx: RuntimeContext): Promise<void> => this.stream(ctx, false);
  threadWait = (ctx: RuntimeContext): Promise<void> => this.wait(ctx, true);
  threadStream = (ctx: RuntimeContext): Promise<void> => this.stream(ctx, true);
}
