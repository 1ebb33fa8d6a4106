// status.revisionHistory and the two summaries (status.activeRevision, status.latestRevision),
// built from what a pass already knows: the deployment (its source_revision_config refers to
// the latest revision), the latest revision's status, and the smoke-test verdict. No call is
// made for it, so a settled pass stays free; and the same inputs give the same history, so a
// pass that learns nothing new writes nothing.
import {
  REVISION_HISTORY_LIMIT,
  type RevisionRecord,
  type RevisionSummary,
  type SmokeTestStatus,
} from '../../api/agentdeployment/index.js';
import {
  isFailedRevisionStatus,
  isTerminalRevisionStatus,
  type Deployment,
  type RevisionStatus,
} from '../../controlplane/models/index.js';

/** What kubectl get shows of a revision id: its first 8 characters, as git and kubectl users expect. */
export const SHORT_ID_LENGTH = 8;
const FAILURE_REASON_LENGTH = 512;

export interface RevisionSighting {
  deployment: Deployment;
  /** The latest revision's status, when this pass knows it. */
  latestStatus?: string;
  /** The smoke-test verdict this pass publishes, if any. */
  verdict?: SmokeTestStatus;
  now: Date;
}

export function shortRevisionId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH);
}

/** The history after this sighting: newest first, at most REVISION_HISTORY_LIMIT entries. */
export function nextRevisionHistory(
  previous: readonly RevisionRecord[] | undefined,
  sighting: RevisionSighting,
): RevisionRecord[] {
  const { deployment, now } = sighting;
  const at = now.toISOString();
  let history = (previous ?? []).map((entry) => ({ ...entry }));
  const latestId = deployment.latest_revision_id;
  const activeId = deployment.active_revision_id;
  if (latestId) {
    const known = history.find((entry) => entry.id === latestId);
    if (!known) {
      // A newer revision supersedes those still in flight: the control plane ends them SKIPPED.
      for (const entry of history) {
        if (entry.id !== activeId && !isTerminal(entry.status)) entry.status = 'SKIPPED';
      }
    }
    const entry: RevisionRecord = known ?? {
      id: latestId,
      status: sighting.latestStatus ?? (latestId === activeId ? 'DEPLOYED' : 'UNKNOWN'),
      createdAt: at,
    };
    if (sighting.latestStatus) entry.status = sighting.latestStatus;
    if (latestId === activeId) entry.status = 'DEPLOYED';
    Object.assign(entry, sourceOf(deployment));
    if (!known) history = [entry, ...history];
  }
  if (activeId) {
    let active = history.find((entry) => entry.id === activeId);
    if (!active) {
      // Older than the latest (or the only one): it goes right after it.
      active = { id: activeId, status: 'DEPLOYED' };
      history.splice(latestId && latestId !== activeId ? 1 : 0, 0, active);
    }
    active.status = 'DEPLOYED';
  }
  for (const entry of history) {
    if (entry.status === 'DEPLOYED') entry.deployedAt ??= at;
    if (isFailedRevisionStatus(entry.status as RevisionStatus)) entry.failureReason ??= entry.status;
  }
  const verdict = sighting.verdict;
  const tested = verdict ? history.find((entry) => entry.id === verdict.revisionId) : undefined;
  if (verdict && tested) {
    tested.smokeTest = verdict.result;
    if (verdict.result === 'Failed') {
      tested.failureReason = clip(`smoke test failed: ${verdict.message}`, FAILURE_REASON_LENGTH);
    } else if (tested.failureReason?.startsWith('smoke test failed') === true) {
      delete tested.failureReason;
    }
  }
  return history.slice(0, REVISION_HISTORY_LIMIT);
}

/** status.activeRevision and status.latestRevision, read off the history. */
export function revisionSummaries(
  history: readonly RevisionRecord[],
  deployment: Deployment,
): { active?: RevisionSummary; latest?: RevisionSummary } {
  const summaryOf = (id: string | null): RevisionSummary | undefined => {
    if (!id) return undefined;
    const entry = history.find((candidate) => candidate.id === id);
    const summary: RevisionSummary = { shortId: shortRevisionId(id) };
    for (const field of [
      'image',
      'repoRef',
      'graphConfigPath',
      'commit',
      'createdAt',
      'deployedAt',
    ] as const) {
      const value = entry?.[field];
      if (value !== undefined) summary[field] = value;
    }
    return summary;
  };
  const active = summaryOf(deployment.active_revision_id);
  if (active && deployment.image_version) active.imageVersion = deployment.image_version;
  const latest = summaryOf(deployment.latest_revision_id);
  return { ...(active ? { active } : {}), ...(latest ? { latest } : {}) };
}

/** What the latest revision was made from: the deployment's revision config refers to it. */
function sourceOf(deployment: Deployment): Partial<RevisionRecord> {
  const config = deployment.source_revision_config;
  const source: Partial<RevisionRecord> = {};
  if (config.image_uri) source.image = config.image_uri;
  if (config.repo_ref) source.repoRef = config.repo_ref;
  if (config.graph_config_path) source.graphConfigPath = config.graph_config_path;
  if (config.repo_commit_sha) source.commit = config.repo_commit_sha;
  return source;
}

function isTerminal(status: string): boolean {
  return isTerminalRevisionStatus(status as RevisionStatus);
}

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
