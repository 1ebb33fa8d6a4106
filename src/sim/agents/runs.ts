// One run of the agent on a thread, and how runs on the same thread share it (the
// multitask strategy): `reject` refuses a run while another is in flight, `enqueue` waits
// for those before it, `interrupt` cancels them and keeps what they wrote, `rollback`
// cancels them and undoes what they wrote. Events are handed to `emit` as they happen,
// so a stream writes them when produced.
import { setTimeout as sleep } from 'node:timers/promises';
import { NODE_NAME, RAISED_ERROR_CLASS, planReply } from './agent.js';
import type { AgentRevision } from './directory.js';
import { aiMessage, type StoredMessage } from './messages.js';
import { RuntimeHttpError } from './runtime-error.js';
import type { MultitaskStrategy, StreamMode } from './schemas.js';
import { addCheckpoint, type AgentValues, type RunRecord, type ThreadRecord } from './threads.js';

export interface GraphError {
  error: string;
  message: string;
}

export type RunOutcome =
  | { status: 'success'; values: AgentValues }
  | { status: 'error'; values: AgentValues; error: GraphError }
  | { status: 'interrupted'; values: AgentValues };

export type EmitEvent = (event: string, data: unknown) => void;

type CancelAction = 'interrupt' | 'rollback';

export interface RunRequest {
  runId: string;
  thread: ThreadRecord;
  assistantId: string;
  input: StoredMessage[];
  streamModes: readonly StreamMode[];
  multitaskStrategy: MultitaskStrategy;
  metadata: Record<string, unknown>;
  revision: AgentRevision;
  emit: EmitEvent;
}

export class RunExecution {
  readonly record: RunRecord;
  readonly done: Promise<RunOutcome>;
  private readonly controller = new AbortController();
  private cancelAction: CancelAction | null = null;

  constructor(
    private readonly request: RunRequest,
    predecessors: readonly RunExecution[],
  ) {
    const now = new Date().toISOString();
    this.record = {
      run_id: request.runId,
      thread_id: request.thread.persistent ? request.thread.threadId : null,
      assistant_id: request.assistantId,
      created_at: now,
      updated_at: now,
      status: 'pending',
      metadata: request.metadata,
      multitask_strategy: request.multitaskStrategy,
      kwargs: {},
    };
    this.done = this.execute(predecessors);
  }

  cancel(action: CancelAction): void {
    if (this.cancelAction !== null) return;
    this.cancelAction = action;
    this.controller.abort();
  }

  private async execute(predecessors: readonly RunExecution[]): Promise<RunOutcome> {
    // Always awaited, even with nothing before: the caller writes the stream's `metadata`
    // event after start() returns, and no event of the run may come before it.
    await Promise.all(predecessors.map((run) => run.done));
    const { thread, emit, streamModes } = this.request;
    const before = { values: thread.values, checkpoints: thread.checkpoints.length };
    const step = thread.checkpoints.length;
    const checkpointMetadata = (source: string, offset: number): Record<string, unknown> => ({
      source,
      step: step + offset,
      parents: {},
      graph_id: 'agent',
      assistant_id: this.request.assistantId,
      run_id: this.record.run_id,
      ...(thread.persistent ? { thread_id: thread.threadId } : {}),
    });
    if (this.controller.signal.aborted)
      return this.finish({ status: 'interrupted', values: current(thread) }, before);

    this.setStatus('running');
    thread.status = 'busy';
    const withInput: AgentValues = { messages: [...current(thread).messages, ...this.request.input] };
    addCheckpoint(thread, {
      values: withInput,
      next: [NODE_NAME],
      tasks: [],
      metadata: checkpointMetadata('loop', 0),
    });
    if (streamModes.includes('values')) emit('values', withInput);

    const plan = planReply(withInput.messages, this.request.revision);
    if (plan.kind !== 'nothing' && plan.delayMs > 0) {
      try {
        await sleep(plan.delayMs, undefined, { signal: this.controller.signal });
      } catch {
        return this.finish({ status: 'interrupted', values: withInput }, before);
      }
    }
    if (plan.kind === 'raise') {
      const error = { error: RAISED_ERROR_CLASS, message: plan.message };
      emit('error', error);
      return this.finish({ status: 'error', values: withInput, error }, before);
    }
    if (plan.kind === 'nothing') return this.finish({ status: 'success', values: withInput }, before);

    const reply = aiMessage(plan.content);
    const answered: AgentValues = { messages: [...withInput.messages, reply] };
    addCheckpoint(thread, { values: answered, next: [], tasks: [], metadata: checkpointMetadata('loop', 1) });
    if (streamModes.includes('updates')) emit('updates', { [NODE_NAME]: { messages: [reply] } });
    if (streamModes.includes('values')) emit('values', answered);
    return this.finish({ status: 'success', values: answered }, before);
  }

  private setStatus(status: RunRecord['status']): void {
    this.record.status = status;
    this.record.updated_at = new Date().toISOString();
  }

  private finish(
    outcome: RunOutcome,
    before: { values: AgentValues | null; checkpoints: number },
  ): RunOutcome {
    const { thread } = this.request;
    this.setStatus(outcome.status);
    if (this.cancelAction === 'rollback') {
      thread.values = before.values;
      thread.checkpoints.length = before.checkpoints;
      thread.runs.delete(this.record.run_id);
    }
    return outcome;
  }
}

function current(thread: ThreadRecord): AgentValues {
  return thread.values ?? { messages: [] };
}

export const REJECTED_MESSAGE =
  'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.';

/**
 * Runs in flight per thread. A run leaves the list when it ends; the last one to end sets
 * the thread's status (`error` after a failed run, `idle` otherwise).
 */
export class RunCoordinator {
  private readonly inflight = new WeakMap<ThreadRecord, RunExecution[]>();

  /** `report` hears of a run that failed inside the emulator (its `done` rejected). */
  constructor(private readonly report: (error: unknown) => void) {}

  start(request: RunRequest): RunExecution {
    const { thread, multitaskStrategy } = request;
    const inflight = this.inflight.get(thread) ?? [];
    if (inflight.length > 0 && multitaskStrategy === 'reject')
      throw new RuntimeHttpError(409, REJECTED_MESSAGE);
    if (multitaskStrategy === 'interrupt' || multitaskStrategy === 'rollback') {
      for (const run of inflight) run.cancel(multitaskStrategy);
    }
    const run = new RunExecution(request, inflight);
    this.inflight.set(thread, [...inflight, run]);
    if (thread.persistent) thread.runs.set(run.record.run_id, run.record);
    const settle = (status: RunOutcome['status']): void => {
      const remaining = (this.inflight.get(thread) ?? []).filter((other) => other !== run);
      if (remaining.length > 0) {
        this.inflight.set(thread, remaining);
      } else {
        this.inflight.delete(thread);
        thread.status = status === 'error' ? 'error' : 'idle';
      }
    };
    // A rejection nobody handles ends the process; a background run has no request to take it.
    run.done.then(
      (outcome) => settle(outcome.status),
      (error: unknown) => {
        this.report(error);
        settle('error');
      },
    );
    return run;
  }
}
