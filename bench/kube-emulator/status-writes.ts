// The status merge patches of bench:kube-emulator: what the operator writes while it follows a
// revision (src/reconcilers/agentdeployment/status.ts). An object's first write carries the
// whole status; the next ones what a new revision state changes: the three kstatus conditions
// (a list, so the patch carries all of it), the revision's state in the history, the sync time.
const STATES = [
  'CREATING',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'DEPLOYED',
] as const;

/** A fixed id per object and label, shaped as the control plane's ids are. */
function idOf(name: string, label: string): string {
  const digits = `${label}${name}`
    .replace(/[^0-9a-f]/g, '')
    .padEnd(12, '0')
    .slice(0, 12);
  return `00000000-0000-4000-8000-${digits}`;
}

function conditions(
  state: string,
  revisionId: string,
  generation: number,
  at: string,
): Array<Record<string, unknown>> {
  const deployed = state === 'DEPLOYED';
  const message = deployed ? `Revision ${revisionId} is deployed` : `Revision ${revisionId} is ${state}`;
  const reason = deployed ? 'Deployed' : 'RevisionInProgress';
  return [
    {
      type: 'Ready',
      status: deployed ? 'True' : 'False',
      reason,
      message,
      observedGeneration: generation,
      lastTransitionTime: at,
    },
    {
      type: 'Reconciling',
      status: deployed ? 'False' : 'True',
      reason,
      message,
      observedGeneration: generation,
      lastTransitionTime: at,
    },
    {
      type: 'Stalled',
      status: 'False',
      reason,
      message,
      observedGeneration: generation,
      lastTransitionTime: at,
    },
  ];
}

/** The status patch of the `write`-th write, to the object `name` (writes go round the objects). */
export function statusOfWrite(name: string, write: number, objects: number): Record<string, unknown> {
  const round = Math.floor(write / objects);
  const state = STATES[round % STATES.length] as string;
  const revisionId = idOf(name, 'r');
  const at = new Date(Date.UTC(2026, 10, 27, 0, 0, 0, write % 1000) + round * 1000).toISOString();
  const history = [
    { id: revisionId, status: state, createdAt: at, image: `registry.example/agents/${name}:1` },
  ];
  const changed = {
    conditions: conditions(state, revisionId, 1, at),
    latestRevisionStatus: state,
    revisionHistory: history,
    lastSyncTime: at,
  };
  if (round > 0) return { status: changed };
  const deploymentId = idOf(name, 'd');
  return {
    status: {
      ...changed,
      observedGeneration: 1,
      deploymentId,
      tenantId: '3963a32c-44cf-54fa-92a7-386b05f7c9a9',
      deploymentStatus: 'AWAITING_DATABASE',
      latestRevisionId: revisionId,
      customUrl: `http://127.0.0.1:8080/agents/${deploymentId}`,
      latestRevision: {
        shortId: revisionId.slice(0, 8),
        image: `registry.example/agents/${name}:1`,
        createdAt: at,
      },
      secretVersions: [],
      ownership: { uid: idOf(name, 'u'), deploymentId },
    },
  };
}
