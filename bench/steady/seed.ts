// Seeding 10,000 settled AgentDeployments quickly, without the operator: the deployments are
// POSTed straight to the control-plane emulator while its rate limit is off (the exact
// bodies the operator would send: toWireCreateRequest), and the objects are created already
// carrying the finalizer and the deployment-id annotation, as an operator before issue 13
// left them. The operator verifies each hint through its batched list (N/100 calls), records
// the id in status.ownership, and writes Ready: an upgrade's first start, at scale.
import { toWireCreateRequest, type AgentDeploymentSpec } from '../../src/api/agentdeployment/index.js';
import { DEPLOYMENT_ID_ANNOTATION, FINALIZER } from '../../src/reconcilers/agentdeployment/object.js';
import {
  agentDeployment,
  benchObjectName,
  createAll,
  inParallel,
  type AgentDeploymentObject,
} from '../support/agent-deployments.js';
import type { Emulators } from '../support/emulators.js';

const PARALLEL = 32;

export async function seedSettledObjects(
  emulators: Emulators,
  n: number,
  limit: { count: number; windowSeconds: number } = { count: 1000, windowSeconds: 10 },
): Promise<void> {
  const listenerId = await emulators.listenerId();
  const objects: AgentDeploymentObject[] = Array.from({ length: n }, (_, i) =>
    agentDeployment(benchObjectName(i), listenerId),
  );
  await emulators.admin('PUT', '/rate-limit', { off: true });
  await inParallel(objects, PARALLEL, async (object) => {
    const request = toWireCreateRequest(
      object as AgentDeploymentObject & { metadata: { name: string }; spec: AgentDeploymentSpec },
      [],
    );
    const created = await emulators.api<{ id: string }>('POST', '/v2/deployments', request);
    object.metadata.annotations = { [DEPLOYMENT_ID_ANNOTATION]: created.id };
    object.metadata.finalizers = [FINALIZER];
  });
  // The limit (the published one unless the run says otherwise) from here on: the
  // measurements run under it.
  await emulators.admin('PUT', '/rate-limit', limit);
  await createAll(emulators.kube, objects, PARALLEL);
}
