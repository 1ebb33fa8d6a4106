// The runtimes' part of the emulator's admin API (behind the emulator's admin guard): call counts, faults
// injected into runtime calls, and each agent's access (owner, workspace sharing, custom authentication). Runtime faults have their own rules, so that a control-plane
// fault rule never fires on an agent call and the other way round. Their `route` names the
// runtime's route template (`/runs/wait`, `/threads/{thread_id}/runs/stream`, `/ok`, ...).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultRegistry, FaultRuleInput } from '../http/faults.js';
import { readBody } from '../http/http-io.js';
import { isUuid } from '../http/ids.js';
import { accessToWire, type AgentAccessRegistry } from './access.js';
import { AccessInputError, parseAccessInput } from './access-input.js';
import type { AgentCallCounter } from './call-counter.js';
import type { AgentDirectory } from './directory.js';
import { writeJson } from './http-io.js';
import { parseRuntimeJson } from './json-body.js';
import { RuntimeHttpError, zodFailure } from './runtime-error.js';

export const AGENT_ADMIN_PREFIX = '/_emulator/agent-';
const CALLS_PATH = '/_emulator/agent-calls';
const FAULTS_PATH = '/_emulator/agent-faults';
const ACCESS_PREFIX = '/_emulator/agent-access/';

/** The access route's errors are JSON `{detail}`, as the control-plane admin API answers. */
const accessError = (status: number, detail: string): RuntimeHttpError =>
  new RuntimeHttpError(status, detail, { detail });

export class RuntimeAdmin {
  readonly faults = new FaultRegistry();

  constructor(
    private readonly calls: AgentCallCounter,
    private readonly access: AgentAccessRegistry,
    private readonly directory: AgentDirectory,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const method = req.method ?? 'GET';
    const route = `${method} ${pathname}`;
    if (route === `GET ${CALLS_PATH}`) return writeJson(res, 200, this.calls.snapshot());
    if (route === `DELETE ${CALLS_PATH}`) {
      this.calls.reset();
      return void res.writeHead(204).end();
    }
    if (route === `POST ${FAULTS_PATH}`) {
      const raw = await readBody(req).catch(() => {
        throw new RuntimeHttpError(413, 'Request body too large');
      });
      const body = parseRuntimeJson(raw) ?? {};
      const rule = FaultRuleInput.safeParse(body);
      if (!rule.success) throw zodFailure(rule.error.issues);
      return writeJson(res, 201, { id: this.faults.add(rule.data) });
    }
    if (route === `DELETE ${FAULTS_PATH}`) {
      this.faults.clear();
      return void res.writeHead(204).end();
    }
    if (pathname.startsWith(ACCESS_PREFIX)) return this.handleAccess(req, res, method, pathname);
    throw new RuntimeHttpError(404, '404 Not Found');
  }

  /** GET, PUT (replace) and DELETE (back to the default) of one deployment's access settings. */
  private async handleAccess(req: IncomingMessage, res: ServerResponse, method: string, pathname: string): Promise<void> {
    const deploymentId = pathname.slice(ACCESS_PREFIX.length).toLowerCase();
    const deployment = isUuid(deploymentId) ? this.directory.deployment(deploymentId) : undefined;
    if (deployment === undefined) throw accessError(404, `Deployment ${deploymentId} not found`);
    if (method === 'GET') return writeJson(res, 200, accessToWire(deployment.id, this.access.get(deployment.id)));
    if (method === 'DELETE') {
      this.access.delete(deployment.id);
      return void res.writeHead(204).end();
    }
    if (method !== 'PUT') throw accessError(405, 'Method Not Allowed');
    const raw = await readBody(req).catch(() => {
      throw accessError(413, 'Request body too large');
    });
    let settings;
    try {
      settings = parseAccessInput(parseRuntimeJson(raw), (key) =>
        (this.directory.tenantsOfKey(key) ?? []).includes(deployment.tenantId),
      );
    } catch (error) {
      if (error instanceof AccessInputError) throw accessError(400, error.message);
      if (error instanceof RuntimeHttpError) throw accessError(error.status, error.message);
      throw error;
    }
    this.access.set(deployment.id, settings);
    return writeJson(res, 200, accessToWire(deployment.id, settings));
  }
}
