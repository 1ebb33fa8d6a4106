// A lane of the operator's own ConnectionLanes on a client whose budget a test drives, with
// nothing behind it (the client's address refuses connections): for what a lane reads and
// holds on its budget without a call going out.
import pino from 'pino';
import type { RateBudget } from '../../../src/controlplane/budget/rate-budget.js';
import { ControlPlaneClient } from '../../../src/controlplane/client/control-plane-client.js';
import { ConnectionLanes } from '../../../src/reconcilers/agentdeployment/connection-lanes.js';
import type { ControlPlaneLane } from '../../../src/reconcilers/agentdeployment/ports.js';

export function loneLaneOn(
  budget: RateBudget,
  apiKey: string,
): { lane: ControlPlaneLane; client: ControlPlaneClient } {
  const client = new ControlPlaneClient({ baseUrl: 'http://127.0.0.1:9', credentials: { apiKey }, budget });
  const lanes = new ConnectionLanes({
    enqueue: () => undefined,
    concurrency: 4,
    onHealthChange: () => undefined,
    logger: pino({ level: 'silent' }),
  });
  return { lane: lanes.laneFor('default', client, 'default'), client };
}
