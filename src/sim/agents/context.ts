// What a route handler of the runtime gets: the exchange, the path parameters, the parsed
// body, and the deployment it serves with the revision that answers and its threads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentRevision, HostedDeployment } from './directory.js';
import type { ThreadRecord } from './threads.js';

export interface DeploymentState {
  createdAt: string;
  threads: Map<string, ThreadRecord>;
}

export interface RuntimeContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  body: unknown;
  deployment: HostedDeployment;
  revision: AgentRevision;
  state: DeploymentState;
}

export type RuntimeHandler = (ctx: RuntimeContext) => void | Promise<void>;
