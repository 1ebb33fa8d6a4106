// TraceDeletion and ExampleDeletion as a person meets them in `kubectl get`, through the real
// kubectl against the Kubernetes emulator serving the generated CRDs: a dry run ends
// Completed like a deletion, so the DRYRUN and MATCHED columns tell the two apart.
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXAMPLE_DELETION_RESOURCE,
  TRACE_DELETION_RESOURCE,
  deletionCrd,
} from '../../src/api/crd/deletion-crd.js';
import { startKube, type KubeUnderTest } from '../packaging/support/kube-emulator.js';

let kube: KubeUnderTest;

async function kubectl(args: string[], input?: string): Promise<string> {
  const result = await kube.kubectl(args, input);
  expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

beforeAll(async () => {
  const started = await startKube();
  if (typeof started === 'string') throw new Error(started);
  kube = started;
  await kubectl(
    ['apply', '-f', '-'],
    [deletionCrd(TRACE_DELETION_RESOURCE), deletionCrd(EXAMPLE_DELETION_RESOURCE)]
      .map((crd) => dump(crd))
      .join('---\n'),
  );
  for (const crd of ['tracedeletions', 'exampledeletions']) {
    await kubectl(['wait', '--for=condition=Established', '--timeout=30s', `crd/${crd}.agentplatform.io`]);
  }
  await kubectl(
    ['apply', '-f', '-'],
    dump({
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'TraceDeletion',
      metadata: { name: 'count-first', namespace: 'default' },
      spec: { metadata: { tenant: 'team-a' }, dryRun: true, maxMatches: 500 },
    }),
  );
  await kubectl(
    ['apply', '-f', '-'],
    dump({
      apiVersion: 'agentplatform.io/v1alpha1',
      kind: 'ExampleDeletion',
      metadata: { name: 'count-first', namespace: 'default' },
      spec: { search: { metadata: { tenant: 'team-a' } }, dryRun: true },
    }),
  );
  const status = JSON.stringify({ status: { phase: 'Completed', matched: 42 } });
  for (const kind of ['tracedeletion', 'exampledeletion']) {
    await kubectl(['patch', kind, 'count-first', '--subresource=status', '--type=merge', '-p', status]);
  }
});

afterAll(async () => {
  await kube?.stop();
});

describe('kubectl get for the deletion kinds', () => {
  it.each(['tracedeletions', 'exampledeletions'])(
    '%s shows a dry run and what it matched',
    async (plural) => {
      const lines = (await kubectl(['get', plural])).trim().split('\n');
      expect(lines[0]).toMatch(/^NAME\s+PHASE\s+DRYRUN\s+MATCHED\s/);
      expect(lines[1]).toMatch(/^count-first\s+Completed\s+true\s+42\s/);
    },
  );
});
