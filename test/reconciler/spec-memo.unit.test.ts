import { describe, expect, it } from 'vitest';
import type { DeploymentCreateRequest } from '../../src/controlplane/models/index.js';
import { memoFor, rememberedDesired, rememberedProblem } from '../../src/reconcilers/agentdeployment/spec-memo.js';

const desired = { name: 'agent' } as unknown as DeploymentCreateRequest;
const identity = { uid: 'u1', generation: 3 };
const ids = { listenerId: 'l1' };
const versions = { 'secret/a': '10', 'configmap/b': '7' };

describe('spec memo', () => {
  const memo = memoFor(identity, undefined, { ids, versions, value: desired });

  it('serves the desired request only for the same uid, generation, ids and versions', () => {
    expect(rememberedDesired(memo, identity, ids, { 'configmap/b': '7', 'secret/a': '10' })).toBe(desired);
    expect(rememberedDesired(memo, { ...identity, generation: 4 }, ids, versions)).toBeUndefined();
    expect(rememberedDesired(memo, { ...identity, uid: 'u2' }, ids, versions)).toBeUndefined();
    expect(rememberedDesired(memo, identity, { listenerId: 'l2' }, versions)).toBeUndefined();
    // A rotated Secret (a new resourceVersion) or one more reference: built again.
    expect(rememberedDesired(memo, identity, ids, { ...versions, 'secret/a': '11' })).toBeUndefined();
    expect(rememberedDesired(memo, identity, ids, { ...versions, 'secret/c': '1' })).toBeUndefined();
  });

  it('keeps the validation verdict per uid and generation', () => {
    const refused = memoFor(identity, 'spec.image: required');
    expect(rememberedProblem(refused, identity)).toBe('spec.image: required');
    expect(rememberedProblem(refused, { ...identity, generation: 4 })).toBe('unknown');
    expect(rememberedProblem(memo, identity)).toBeUndefined();
    expect(rememberedProblem(undefined, identity)).toBe('unknown');
  });

  it('never memoises an object without a uid or a generation', () => {
    expect(memoFor({ uid: undefined, generation: 1 }, undefined)).toBeUndefined();
    expect(memoFor({ uid: '', generation: 1 }, undefined)).toBeUndefined();
    expect(memoFor({ uid: 'u1', generation: undefined }, undefined)).toBeUndefined();
  });
});
