// The agent runtime emulator: every deployment of the control-plane emulator with a
// deployed revision answers at `<emulator url>/agents/<deployment id>`, with the runtime
// server's API (assistants, threads, stateless and stateful runs, wait and stream). It is
// mounted on the control-plane emulator's listener and learns about deployments, revisions
// and keys only through an AgentDirectory.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http/http-io.js';
import { isUuid, keyFingerprint } from '../http/ids.js';
import { Router } from '../http/router.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentAccessRegistry } from './access.js';
import { RuntimeAdmin } from './admin.js';
import { authorizedDeployment, type Authorized } from './auth.js';
import { AgentCallCounter } from './call-counter.js';
import type { DeploymentState, RuntimeHandler } from './context.js';
import type { AgentDirectory } from './directory.js';
import { writeJson } from './http-io.js';
import { parseRuntimeJson } from './json-body.js';
import { RunHandlers, type TraceSink } from './run-handlers.js';
import { resourceHandlers as r } from './resource-handlers.js';
import { RuntimeHttpError } from './runtime-error.js';

export type { AgentDirectory, AgentRevision, AgentTrace, HostedDeployment } from './directory.js';
export { ASSISTANT_ID, GRAPH_ID } from './agent.js';
export { AGENT_ADMIN_PREFIX } from './admin.js';
export { AUTH_SCHEME } from './auth.js';
export type { AgentCallCount } from './call-counter.js';

/** Where the runtimes live on the emulator's listener: `/agents/<deployment id>/...`. */
export const AGENT_PATH_PREFIX = '/agents/';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The routes that run the agent or change its threads: what a reader of a workspace-shared
 * agent may not do ("the same operations as the UI, read-only"). Searches and history are
 * POSTs that only read.
 */
const RUN_ROUTES = new Set([
  'POST /threads',
  'DELETE /threads/{thread_id}',
  'POST /threads/{thread_id}/runs',
  'POST /threads/{thread_id}/runs/wait',
  'POST /threads/{thread_id}/runs/stream',
  'POST /runs',
  'POST /runs/wait',
  'POST /runs/stream',
]);

function runtimeRouter(
  reportRunFailure: (error: unknown) => void,
  recordTrace: TraceSink,
): Router<RuntimeHandler> {
  const runs = new RunHandlers(reportRunFailure, recordTrace);
  return (
    new Router<RuntimeHandler>()
      .add('GET', '/ok', r.ok)
      // Literal paths before templates: the router answers a path by the first template it fits.
      .add('POST', '/assistants/search', r.searchAssistants)
      .add('GET', '/assistants/{assistant_id}', r.getAssistant)
      .add('POST', '/threads', r.createThread)
      .add('POST', '/threads/search', r.searchThreads)
      .add('GET', '/threads/{thread_id}', r.getThread)
      .add('DELETE', '/threads/{thread_id}', r.deleteThread)
      .add('GET', '/threads/{thread_id}/state', r.getState)
      .add('POST', '/threads/{thread_id}/history', r.history)
      .add('GET', '/threads/{thread_id}/runs', r.listRuns)
      .add('POST', '/threads/{thread_id}/runs', runs.threadCreate)
      .add('POST', '/threads/{thread_id}/runs/wait', runs.threadWait)
      .add('POST', '/threads/{thread_id}/runs/stream', runs.threadStream)
      .add('GET', '/threads/{thread_id}/runs/{run_id}', r.getRun)
      .add('GET', '/threads/{thread_id}/runs/{run_id}/join', runs.join)
      .add('POST', '/runs', runs.statelessCreate)
      .add('POST', '/runs/wait', runs.statelessWait)
      .add('POST', '/runs/stream', runs.statelessStream)
  );
}

function answerRuntimeError(error: unknown, res: ServerResponse): void {
  if (!(error instanceof RuntimeHttpError) || res.headersSent) throw error;
  error.write(res);
}

export class AgentRuntimeEmulator {
  private readonly router: Router<RuntimeHandler>;
  private readonly states = new Map<string, DeploymentState>();
  /** Every answered call, for tests; read and cleared through the admin API. */
  private readonly calls = new AgentCallCounter();
  /** Who owns each agent, whether it is shared, its custom authentication (admin-set). */
  private readonly access = new AgentAccessRegistry();
  private readonly admin: RuntimeAdmin;

  /**
   * `reportRunFailure` hears of runs that failed inside the emulator: a background run has no
   * request left to answer, so the log is the only place such a failure can show.
   */
  constructor(
    private readonly directory: AgentDirectory,
    reportRunFailure: (error: unknown) => void = () => undefined,
  ) {
    this.router = runtimeRouter(reportRunFailure, (deployment, trace) =>
      directory.recordTrace?.(deployment, trace),
    );
    this.admin = new RuntimeAdmin(this.calls, this.access, directory);
  }

  /**
   * Serves a request whose path starts with AGENT_PATH_PREFIX. The runtime's own errors are
   * answered here; anything else (or an error once the answer has started) is rejected with,
   * for the listener's request guard to log and answer.
   */
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    return this.serve(req, res, pathname).catch((error: unknown) => answerRuntimeError(error, res));
  }

  /** Serves the runtimes' admin paths (AGENT_ADMIN_PREFIX): call counts and faults. */
  handleAdmin(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    return this.admin.handle(req, res, pathname).catch((error: unknown) => answerRuntimeError(error, res));
  }

  private async serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const rest = pathname.slice(AGENT_PATH_PREFIX.length);
    const slash = rest.indexOf('/');
    const deploymentId = (slash < 0 ? rest : rest.slice(0, slash)).toLowerCase();
    const route = slash < 0 ? '/' : rest.slice(slash);
    if (!isUuid(deploymentId)) throw new RuntimeHttpError(404, '404 Not Found');
    const method = req.method ?? 'GET';
    const match = this.router.match(method, route);
    const template = match.kind === 'not-found' ? '(unmatched)' : match.template;
    this.countOnClose(req, res, deploymentId, template);
    const body = METHODS_WITH_BODY.has(method) ? await this.body(req) : undefined;
    // Injected faults act first, as a proxy in front of the agent would.
    const fault = this.admin.faults.take(method, template);
    if (fault) {
      if (fault.latencyMs > 0) await sleep(fault.latencyMs);
      if (fault.outcome.kind === 'reset') return void req.socket.destroy();
      if (fault.outcome.kind === 'status') {
        throw new RuntimeHttpError(fault.outcome.status, `Injected fault: HTTP ${fault.outcome.status}`);
      }
    }

    if (method === 'GET' && route === '/info') {
      return writeJson(res, 200, {
        version: 'agent-operator-emulator',
        flags: { assistants: true, crons: false },
      });
    }
    const { deployment, level } = this.authorize(deploymentId, req);
    const revision = deployment.activeRevision;
    if (revision === null) throw new RuntimeHttpError(503, 'The agent has no deployed revision yet');
    if (match.kind !== 'found') throw new RuntimeHttpError(404, '404 Not Found');
    if (level === 'reader' && RUN_ROUTES.has(`${method} ${match.template}`)) {
      throw new RuntimeHttpError(
        403,
        'This agent is shared with your workspace read-only: only its owner may run it or change its threads',
      );
    }
    const state = this.stateOf(deployment.id);
    await match.handler({ req, res, params: match.params, body, deployment, revision, state });
  }

  private async body(req: IncomingMessage): Promise<unknown> {
    const raw = await readBody(req).catch(() => {
      throw new RuntimeHttpError(413, 'Request body too large');
    });
    const contentType = req.headers['content-type'] ?? '';
    if (raw.trim() !== '' && !contentType.toLowerCase().startsWith('application/json')) {
      throw new RuntimeHttpError(415, 'Content-Type must be application/json');
    }
    return parseRuntimeJson(raw);
  }

  private countOnClose(req: IncomingMessage, res: ServerResponse, deploymentId: string, route: string): void {
    const key = req.headers['x-api-key'];
    const fingerprint = typeof key === 'string' && key !== '' ? keyFingerprint(key) : null;
    res.once('close', () =>
      this.calls.record({
        deployment_id: deploymentId,
        method: req.method ?? 'GET',
        route,
        status: res.statusCode,
        key_fingerprint: fingerprint,
      }),
    );
  }

  private authorize(deploymentId: string, req: IncomingMessage): Authorized {
    try {
      return authorizedDeployment(this.directory, this.access, deploymentId, req.headers);
    } catch (error) {
      // A deployment that is gone takes its threads and its access settings with it.
      if (!this.directory.deployment(deploymentId)) {
        this.states.delete(deploymentId);
        this.access.delete(deploymentId);
      }
      throw error;
    }
  }

  /** A deployment's threads, kept across revisions as a deployment's database would be. */
  private stateOf(deploymentId: string): DeploymentState {
    let state = this.states.get(deploymentId);
    if (!state) {
      state = { createdAt: new Date().toISOString(), threads: new Map() };
      this.states.set(deploymentId, state);
    }
    return state;
  }
}
