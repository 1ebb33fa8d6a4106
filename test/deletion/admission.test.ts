// What the API server refuses of the guards, before the operator sees anything: maxMatches
// must be a whole number of at least 1, and neither guard can be changed or removed later
// (the spec is immutable), so that a dry run cannot be turned into a deletion of the same
// object and a bound cannot be lifted after review.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_DELETIONS, TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import type { ResourceType } from '../../src/runtime/kube/resource.js';
import { startKubeWithDeletionCrds } from './kube-only.js';

const NAMESPACES: ResourceType = { group: '', version: 'v1', plural: 'namespaces', namespaced: false };
const NAMESPACE = 'privacy';

const KINDS = [
  { kind: 'TraceDeletion', type: TRACE_DELETIONS, what: { metadata: { user_id: 'u-1' } } },
  { kind: 'ExampleDeletion', type: EXAMPLE_DELETIONS, what: { search: { metadata: { run: 'r-1' } } } },
];

describe.each(KINDS)('$kind admission of dryRun and maxMatches', ({ kind, type, what }) => {
  let kube: Awaited<ReturnType<typeof startKubeWithDeletionCrds>>;
  beforeAll(async () => {
    kube = await startKubeWithDeletionCrds();
    await kube.client.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NAMESPACE },
    });
  });
  afterAll(() => kube.close());

  const create = (name: string, spec: Record<string, unknown>) =>
    kube.client.create(type, {
      apiVersion: 'agentplatform.io/v1alpha1',
      kind,
      metadata: { name, namespace: NAMESPACE },
      spec: { ...what, ...spec },
    });

  it.each([
    ['zero', 0],
    ['negative', -5],
    ['a fraction', 2.5],
  ])('refuses a maxMatches of %s, naming the field', async (_label, maxMatches) => {
    await expect(create(`bad-${String(maxMatches).replace(/\W/g, '')}`, { maxMatches })).rejects.toThrow(
      /spec\.maxMatches/,
    );
  });

  it('accepts both guards, and refuses to change or remove them afterwards', async () => {
    await create('guarded', { dryRun: true, maxMatches: 100 });
    for (const spec of [{ dryRun: false }, { dryRun: null }, { maxMatches: 5000 }, { maxMatches: null }]) {
      await expect(kube.client.mergePatch(type, NAMESPACE, 'guarded', { spec })).rejects.toThrow(
        /spec is immutable/,
      );
    }
  });
});
