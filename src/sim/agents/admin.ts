// The runtimes' part of the emulator's admin API (behind the emulator's admin guard): call counts, and faults
// injected into runtime calls. Runtime faults have their own rules, so that a control-plane
// fault rule never fires on an agent call and the other way round. Their `route` names the
// runtime's route template (`/runs/wait`, `/threads/{thread_id}/runs/stream`, `/ok`, ...).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultRegistry, FaultRuleInput } from '../http/faults.js';
import { readBody } from '../http/http-io.js';
import type { AgentCallCounter } from './call-counter.js';
import { writeJson } from './http-io.js';
import { parseRuntimeJson } from './json-body.js';
import { RuntimeHttpError, zodFailure } from './runtime-error.js';

export const AGENT_ADMIN_PREFIX = '/_emulator/agent-';
const CALLS_PATH = '/_emulator/agent-calls';
const FAULTS_PATH = '/_emulator/agent-faults';

export class RuntimeAdmin {
  readonly faults = new FaultRegistry();

  constructor(private readonly calls: AgentCallCounter) {}

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
    throw new RuntimeHttpError(404, '404 Not Found');
  }
}
