// The spec's reading kept from one pass to the next. A spec cannot change without its
// metadata.generation changing (the API server bumps it for every change outside metadata
// and status), so for one uid and generation the validation verdict is the same; and the
// desired deployment is the same while the named ids and the versions of the Secrets and
// ConfigMaps it was resolved from are. Re-validating with zod and rebuilding the wire request
// was most of a no-op pass's own work (bench:steady's CPU profile of the no-op rounds).
//
// Keeping the same desired object also lets diffDeployment's memo (diff.ts) answer by
// identity. The desired request is held for as long as the key's memory (about 0.7 KB per
// object in bench:steady's heap snapshot). It was held weakly once, to spare that memory at
// rest; but a full GC then dropped every one, and the next touch of every object (a resync,
// an annotation, a Secret rotation) rebuilt each request and diffed it afresh: a fifth of a
// no-op pass's CPU in bench:steady's profile. The request holds the values of the Secrets it
// was resolved from: a pass that finds one of them gone drops it (observe.ts), as the Secret
// cache drops their values.
// Objects without a uid or a generation (hand-made ones in tests) are never memoised.
import type { DeploymentCreateRequest } from '../../controlplane/models/index.js';
import { secretVersionsKey } from './object.js';
import type { ResolvedIds } from './ports.js';

export interface SpecMemo {
  uid: string;
  generation: number;
  /** Why the spec cannot be understood, or undefined: for this uid and generation. */
  problem: string | undefined;
  /** The desired deployment, for the ids and versions below. */
  desired?: { idsKey: string; versionsKey: string; value: DeploymentCreateRequest };
}

export interface SpecIdentity {
  uid: string | undefined;
  generation: number | undefined;
}

/** The memo's verdict for this identity, or 'unknown' when it has none. */
export function rememberedProblem(
  memo: SpecMemo | undefined,
  identity: SpecIdentity,
): string | undefined | 'unknown' {
  return memo !== undefined && sameSpec(memo, identity) ? memo.problem : 'unknown';
}

export function rememberedDesired(
  memo: SpecMemo | undefined,
  identity: SpecIdentity,
  ids: ResolvedIds,
  versions: Record<string, string>,
): DeploymentCreateRequest | undefined {
  if (memo?.desired === undefined || !sameSpec(memo, identity)) return undefined;
  const { desired } = memo;
  return desired.idsKey === idsKeyOf(ids) && desired.versionsKey === secretVersionsKey(versions)
    ? desired.value
    : undefined;
}

/** A memo for this identity (undefined when it cannot be memoised), keeping a desired state if given. */
export function memoFor(
  identity: SpecIdentity,
  problem: string | undefined,
  desired?: { ids: ResolvedIds; versions: Record<string, string>; value: DeploymentCreateRequest },
): SpecMemo | undefined {
  const { uid, generation } = identity;
  if (uid === undefined || uid === '' || generation === undefined) return undefined;
  return {
    uid,
    generation,
    problem,
    ...(desired
      ? {
          desired: {
            idsKey: idsKeyOf(desired.ids),
            versionsKey: secretVersionsKey(desired.versions),
            value: desired.value,
          },
        }
      : {}),
  };
}

function sameSpec(memo: SpecMemo, identity: SpecIdentity): boolean {
  return identity.uid === memo.uid && identity.generation === memo.generation;
}

function idsKeyOf(ids: ResolvedIds): string {
  return `${ids.listenerId ?? ''}|${ids.integrationId ?? ''}`;
}
