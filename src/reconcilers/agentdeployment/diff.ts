// The difference between what the spec asks for and what the control plane has, as the
// smallest PATCH that closes it. Pure: no I/O, no clock.
//
// The PATCH semantics (docs/api/control-plane.md, "Operations") shape the rules: null or absent means "leave as
// is", so a field the user removed cannot be cleared, and is therefore not compared; a
// non-null resource_spec overwrites the whole spec, so it is compared after applying the
// server's documented defaults; revision fields, secrets and resource_spec create a new
// revision, so they are sent only when they really differ.
import type {
  Deployment,
  DeploymentCreateRequest,
  DeploymentPatchRequest,
  Secret,
  SourceConfig,
  SourceRevisionConfigRequest,
} from '../../controlplane/models/index.js';
import { equalIgnoringUnset, isUnset } from '../../runtime/equal-ignoring-unset.js';
import { normalizeResourceSpec } from './normalize-resource-spec.js';

export interface DeploymentDiff {
  /** The PATCH body to send, or null when nothing can or needs to change. */
  patch: DeploymentPatchRequest | null;
  /** True when the PATCH makes the control plane build a new revision. */
  createsRevision: boolean;
  /** Wire paths of the fields the PATCH changes, for events. Never values: secrets live here. */
  changedFields: string[];
  /** Wire paths that differ but that no PATCH may change (the object must be recreated). */
  immutableChanges: string[];
  /** Wire paths the spec no longer sets but the deployment still has, which no PATCH can clear. */
  uncleared: string[];
}

/** source_config fields that PATCH may not change (docs/api/control-plane.md, "Source configuration"). */
const IMMUTABLE_SOURCE_CONFIG = ['integration_id', 'repo_url', 'deployment_type', 'listener_id'] as const;
/** source_config fields that PATCH may change without a new revision. */
const SETTABLE_SOURCE_CONFIG = ['build_on_push', 'install_command', 'build_command'] as const;
const REVISION_FIELDS = ['repo_ref', 'graph_config_path', 'image_uri'] as const;

export function diffDeployment(desired: DeploymentCreateRequest, observed: Deployment): DeploymentDiff {
  const changedFields: string[] = [];
  const immutableChanges: string[] = [];
  const sourceConfigPatch: Partial<SourceConfig> = {};
  const revisionPatch: Partial<SourceRevisionConfigRequest> = {};
  let secretsPatch: Secret[] | undefined;
  let createsRevision = false;

  if (desired.name !== observed.name) immutableChanges.push('name');
  if (desired.source !== observed.source) immutableChanges.push('source');

  const want = desired.source_config;
  const have = observed.source_config;
  for (const field of IMMUTABLE_SOURCE_CONFIG) {
    if (!isUnset(want[field]) && want[field] !== have[field]) immutableChanges.push(`source_config.${field}`);
  }
  const wantNamespace = want.listener_config?.cluster_namespace;
  if (!isUnset(wantNamespace) && wantNamespace !== have.listener_config?.cluster_namespace) {
    immutableChanges.push('source_config.listener_config.cluster_namespace');
  }

  for (const field of SETTABLE_SOURCE_CONFIG) {
    const value = want[field];
    if (!isUnset(value) && value !== have[field]) {
      Object.assign(sourceConfigPatch, { [field]: value });
      changedFields.push(`source_config.${field}`);
    }
  }
  // custom_url is the user's only for external_container; for repo_host the server sets it.
  if (
    desired.source === 'external_container' &&
    !isUnset(want.custom_url) &&
    want.custom_url !== have.custom_url
  ) {
    sourceConfigPatch.custom_url = want.custom_url;
    changedFields.push('source_config.custom_url');
  }
  if (
    !isUnset(want.resource_spec) &&
    !equalIgnoringUnset(normalizeResourceSpec(want.resource_spec), have.resource_spec ?? null)
  ) {
    sourceConfigPatch.resource_spec = want.resource_spec;
    changedFields.push('source_config.resource_spec');
    createsRevision = true;
  }

  for (const field of REVISION_FIELDS) {
    const value = desired.source_revision_config[field];
    if (!isUnset(value) && value !== observed.source_revision_config[field]) {
      revisionPatch[field] = value;
      changedFields.push(`source_revision_config.${field}`);
      createsRevision = true;
    }
  }

  // An empty list would be read as "absent" by the server, so secrets can be replaced but
  // never cleared to nothing; such a desire is not comparable and is left alone.
  if (desired.secrets.length > 0 && !sameSecrets(desired.secrets, observed.secrets)) {
    secretsPatch = desired.secrets;
    changedFields.push('secrets');
    createsRevision = true;
  }

  const uncleared = desired.secrets.length === 0 && observed.secrets.length > 0 ? ['secrets'] : [];

  const patch: DeploymentPatchRequest = {};
  if (Object.keys(sourceConfigPatch).length > 0) patch.source_config = sourceConfigPatch;
  if (Object.keys(revisionPatch).length > 0) patch.source_revision_config = revisionPatch;
  if (secretsPatch) patch.secrets = secretsPatch;

  return {
    patch: Object.keys(patch).length > 0 ? patch : null,
    createsRevision,
    changedFields,
    immutableChanges,
    uncleared,
  };
}

/** Same names with the same values, in any order. */
function sameSecrets(want: readonly Secret[], have: readonly Secret[]): boolean {
  if (want.length !== have.length) return false;
  const byName = new Map(have.map((secret) => [secret.name, secret.value]));
  return want.every((secret) => byName.has(secret.name) && byName.get(secret.name) === secret.value);
}

/**
 * diffDeployment, answered from memory when both inputs are the very objects of an earlier
 * call: a settled pass compares the same desired request (spec-memo.ts keeps it) with the
 * same observed deployment (the observation cache keeps it until a poll brings a different
 * one). One weak map, keyed by the observed deployment (one entry per deployment, gone with
 * it), holding the last desired request it was compared with; the answer is frozen, because
 * every pass that asks shares it.
 */
const remembered = new WeakMap<
  Deployment,
  { desired: DeploymentCreateRequest; diff: Readonly<DeploymentDiff> }
>();

export function diffDeploymentRemembered(
  desired: DeploymentCreateRequest,
  observed: Deployment,
): Readonly<DeploymentDiff> {
  const known = remembered.get(observed);
  if (known !== undefined && known.desired === desired) return known.diff;
  const computed = diffDeployment(desired, observed);
  const diff = isNoDifference(computed) ? NO_DIFFERENCE : deepFreezeDiff(computed);
  remembered.set(observed, { desired, diff });
  return diff;
}

/** The answer of every settled pass, shared: one object for the fleet, not one per deployment. */
const NO_DIFFERENCE: Readonly<DeploymentDiff> = deepFreezeDiff({
  patch: null,
  createsRevision: false,
  changedFields: [],
  immutableChanges: [],
  uncleared: [],
});

function isNoDifference(diff: DeploymentDiff): boolean {
  return (
    diff.patch === null &&
    !diff.createsRevision &&
    diff.changedFields.length === 0 &&
    diff.immutableChanges.length === 0 &&
    diff.uncleared.length === 0
  );
}

function deepFreezeDiff(diff: DeploymentDiff): Readonly<DeploymentDiff> {
  Object.freeze(diff.changedFields);
  Object.freeze(diff.immutableChanges);
  Object.freeze(diff.uncleared);
  return Object.freeze(diff);
}
