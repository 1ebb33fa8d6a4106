// The operator's and the CLI's client for a deployed agent, built on the official
// @langchain/langgraph-sdk: stateless or threaded runs (wait or stream), threads, and the
// health check. It sends the key in X-Api-Key with X-Auth-Scheme: platform-api-key, gives
// every call a deadline (the SDK sets none on waits and streams), never retries on its own
// (the caller owns backoff), and returns failures as values that never carry the key.
import { Client } from '@langchain/langgraph-sdk';
import { callError, kindOfStatus, type AgentCallError, type AgentCallResult } from './errors.js';
import { RequestDeadline } from '../runtime/request-deadline.js';

export const AUTH_SCHEME_HEADER = 'x-auth-scheme';
export const AUTH_SCHEME = 'platform-api-key';
/** The graph the platform's agents serve by default; the emulated agent's graph too. */
export const DEFAULT_ASSISTANT = 'agent';
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface AgentClientOptions {
  /** The agent's address (a deployment's custom_url); may carry a path. */
  url: string;
  apiKey: string;
  /**
   * Headers of the caller's own sent with every call (an agent with custom authentication
   * expects some): they cannot replace x-api-key or x-auth-scheme, and their values are
   * removed from every error message like the key.
   */
  headers?: Readonly<Record<string, string>>;
  /** Deadline of each call unless the call sets its own (default 30 s). */
  timeoutMs?: number;
  /** For tests and proxies; defaults to the global fetch. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface RunOptions extends CallOptions {
  /** The input state, e.g. `{messages: [{role: "user", content: "hi"}]}`. */
  input: Record<string, unknown>;
  /** A thread to run on; absent: a stateless run. */
  threadId?: string;
  assistantId?: string;
  multitaskStrategy?: 'reject' | 'interrupt' | 'rollback' | 'enqueue';
}

export interface StreamOptions extends RunOptions {
  /** Default `['updates']`: one event per step, what a caller printing progress wants. */
  streamMode?: ('values' | 'updates')[];
}

export interface WaitOutcome {
  values: Record<string, unknown>;
  runId?: string;
  threadId?: string;
}

export type StreamItem =
  { kind: 'event'; event: string; data: unknown } | { kind: 'failed'; error: AgentCallError };

interface HttpErrorLike {
  status: number;
  text: string;
}

function isHttpError(error: unknown): error is HttpErrorLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { status?: unknown }).status === 'number' &&
    typeof (error as { text?: unknown }).text === 'string'
  );
}

function graphError(values: unknown): { error: string; message: string } | undefined {
  if (typeof values !== 'object' || values === null || !('__error__' in values)) return undefined;
  const raised = (values as { __error__: unknown }).__error__;
  if (typeof raised !== 'object' || raised === null) return undefined;
  const { error, message } = raised as { error?: unknown; message?: unknown };
  return { error: String(error ?? 'Error'), message: String(message ?? '') };
}

/**
 * One call's deadline joined with the caller's signal, so a failure can say which fired. A
 * RequestDeadline underneath: released when the call (a whole stream, too) ends, so neither its
 * timer nor a listener on the caller's signal outlives the call.
 */
class Deadline {
  private readonly request: RequestDeadline;

  constructor(
    caller: AbortSignal | undefined,
    readonly timeoutMs: number,
  ) {
    this.request = new RequestDeadline(caller, timeoutMs);
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }

  release(): void {
    this.request.release();
  }

  /** The error for a call that failed, or undefined when neither signal fired. */
  failure(apiKey: string | readonly string[]): AgentCallError | undefined {
    if (!this.signal.aborted) return undefined;
    // The reason is whichever fired first: the deadline's own TimeoutError, or the caller's.
    const reason: unknown = this.signal.reason;
    return reason instanceof DOMException && reason.name === 'TimeoutError'
      ? callError('timeout', `no answer within ${this.timeoutMs} ms`, apiKey)
      : callError('aborted', 'the call was aborted', apiKey);
  }
}

export class AgentRuntimeClient {
  private readonly sdk: Client;
  private readonly timeoutMs: number;
  /** What error messages must never show: the key and the custom header values. */
  private readonly secrets: readonly string[];
  private readonly extraHeaders: Record<string, string>;

  /** The caller's fetch (or the global one), never following a redirect. */
  private readonly fetch: typeof fetch;

  constructor(private readonly options: AgentClientOptions) {
    if (options.apiKey === '') throw new TypeError('AgentRuntimeClient: apiKey must not be empty');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.extraHeaders = ownHeaders(options.headers);
    this.secrets = [options.apiKey, ...Object.values(this.extraHeaders)];
    // fetch keeps X-Api-Key on a cross-origin redirect: following one would hand the key to
    // whatever host the agent (or something in front of it) names. A redirect is an error.
    const base = options.fetch ?? fetch;
    this.fetch = (input, init) => base(input, { ...init, redirect: 'error' });
    this.sdk = new Client({
      apiUrl: options.url,
      // Always explicit: left undefined, the SDK would pick a key from LANGGRAPH_API_KEY & co.
      apiKey: options.apiKey,
      defaultHeaders: { ...this.extraHeaders, [AUTH_SCHEME_HEADER]: AUTH_SCHEME },
      callerOptions: {
        maxRetries: 0,
        maxConcurrency: Number.POSITIVE_INFINITY,
        fetch: this.fetch,
      },
    });
  }

  private deadline(options: CallOptions): Deadline {
    return new Deadline(options.signal, options.timeoutMs ?? this.timeoutMs);
  }

  private failure(error: unknown, deadline: Deadline): AgentCallError {
    const key = this.secrets;
    const fired = deadline.failure(key);
    if (fired) return fired;
    if (isHttpError(error)) {
      return callError(kindOfStatus(error.status), `HTTP ${error.status}: ${error.text}`, key, error.status);
    }
    const message = error instanceof Error ? error.message : String(error);
    const unreachable =
      (error instanceof Error && error.name === 'ConnectionError') ||
      /fetch failed|ECONNREFUSED|socket/i.test(message);
    return callError(unreachable ? 'unreachable' : 'protocol', message, key);
  }

  /** GET /ok: whether the agent answers. */
  async ping(options: CallOptions = {}): Promise<AgentCallResult<void>> {
    const deadline = this.deadline(options);
    try {
      const response = await this.fetch(`${this.options.url.replace(/\/$/, '')}/ok`, {
        headers: {
          ...this.extraHeaders,
          'x-api-key': this.options.apiKey,
          [AUTH_SCHEME_HEADER]: AUTH_SCHEME,
        },
        signal: deadline.signal,
      });
      const text = await response.text();
      if (response.ok) return { ok: true, value: undefined };
      return { ok: false, error: this.failure({ status: response.status, text }, deadline) };
    } catch (error) {
      return { ok: false, error: this.failure(error, deadline) };
    } finally {
      deadline.release();
    }
  }

  async createThread(options: CallOptions = {}): Promise<AgentCallResult<{ threadId: string }>> {
    const deadline = this.deadline(options);
    try {
      const thread = await this.sdk.threads.create({ signal: deadline.signal });
      return { ok: true, value: { threadId: thread.thread_id } };
    } catch (error) {
      return { ok: false, error: this.failure(error, deadline) };
    } finally {
      deadline.release();
    }
  }

  /** A run that answers once it ends: its final values, or the graph's error. */
  async wait(options: RunOptions): Promise<AgentCallResult<WaitOutcome>> {
    const deadline = this.deadline(options);
    let created: { run_id: string; thread_id?: string } | undefined;
    try {
      const payload = {
        input: options.input,
        signal: deadline.signal,
        raiseError: false,
        onRunCreated: (meta: { run_id: string; thread_id?: string }) => (created = meta),
      };
      const assistant = options.assistantId ?? DEFAULT_ASSISTANT;
      const values =
        options.threadId === undefined
          ? await this.sdk.runs.wait(null, assistant, payload)
          : await this.sdk.runs.wait(options.threadId, assistant, {
              ...payload,
              ...(options.multitaskStrategy ? { multitaskStrategy: options.multitaskStrategy } : {}),
            });
      const raised = graphError(values);
      if (raised) {
        return {
          ok: false,
          error: callError('graph', `${raised.error}: ${raised.message}`, this.secrets),
        };
      }
      if (typeof values !== 'object' || values === null || Array.isArray(values)) {
        return {
          ok: false,
          error: callError('protocol', 'the run answered no state object', this.secrets),
        };
      }
      return {
        ok: true,
        value: {
          values: values as Record<string, unknown>,
          ...(created ? { runId: created.run_id } : {}),
          ...(created?.thread_id ? { threadId: created.thread_id } : {}),
        },
      };
    } catch (error) {
      return { ok: false, error: this.failure(error, deadline) };
    } finally {
      deadline.release();
    }
  }

  /**
   * A streamed run: each event as the server sends it (`metadata` first), and a last
   * `failed` item when the call or the graph fails. Never throws. The deadline covers the
   * whole stream.
   */
  async *stream(options: StreamOptions): AsyncGenerator<StreamItem> {
    const deadline = this.deadline(options);
    try {
      const payload = {
        input: options.input,
        streamMode: options.streamMode ?? (['updates'] as ('values' | 'updates')[]),
        signal: deadline.signal,
      };
      const assistant = options.assistantId ?? DEFAULT_ASSISTANT;
      const events =
        options.threadId === undefined
          ? this.sdk.runs.stream(null, assistant, payload)
          : this.sdk.runs.stream(options.threadId, assistant, {
              ...payload,
              ...(options.multitaskStrategy ? { multitaskStrategy: options.multitaskStrategy } : {}),
            });
      for await (const part of events) {
        if (part.event === 'error') {
          const raised = graphError({ __error__: part.data });
          const text = raised ? `${raised.error}: ${raised.message}` : 'the run failed';
          yield { kind: 'failed', error: callError('graph', text, this.secrets) };
          return;
        }
        yield { kind: 'event', event: part.event, data: part.data };
      }
      // The SDK ends quietly when its signal fires mid-stream; that is still a failure.
      const fired = deadline.failure(this.secrets);
      if (fired) yield { kind: 'failed', error: fired };
    } catch (error) {
      yield { kind: 'failed', error: this.failure(error, deadline) };
    } finally {
      // Also when the consumer stops early: the generator's return() runs this.
      deadline.release();
    }
  }
}

/** The text of the last AI message in a state's `messages`, if there is one. */
export function lastAiText(values: unknown): string | undefined {
  const messages = (values as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { type?: unknown; role?: unknown; content?: unknown } | null;
    if (message?.type !== 'ai' && message?.role !== 'assistant') continue;
    if (typeof message.content === 'string') return message.content;
    if (Array.isArray(message.content)) {
      return message.content
        .map((part: unknown) =>
          typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '',
        )
        .join('');
    }
  }
  return undefined;
}

/** The caller's headers without any that would replace the key or the scheme (lower-cased names). */
function ownHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const own: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'x-api-key' || lower === AUTH_SCHEME_HEADER) {
      throw new TypeError(`AgentRuntimeClient: header "${name}" is the platform's own and cannot be set`);
    }
    own[lower] = value;
  }
  return own;
}
