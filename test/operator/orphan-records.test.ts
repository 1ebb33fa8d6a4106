// The orphan records against the Kubernetes emulator: what one replica writes another reads,
// a concurrent writer is not overwritten, the oldest records go first past the bound, and
// an unreadable entry fails closed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RECORDS, OrphanRecords } from '../../src/reconcilers/agentdeployment/orphan-records.js';
import { kubeClientFrom, loadClusterAccess } from '../../src/runtime/kube/cluster-access.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';

const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };
const NAMESPACE = 'agent-system';
const NAME = 'agent-operator-orphans';
const logger = pino({ level: 'silent' });
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

let dir: string;
let kube: KubeEmulator;
let client: KubeClient;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orphan-records-'));
  kube = await startKubeEmulator({ kubeconfigPath: join(dir, 'kubeconfig') });
  ({ client } = kubeClientFrom(await loadClusterAccess({ kind: 'file', path: kube.kubeconfigPath ?? '' })));
  await client.create(
    { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  );
});
afterEach(async () => {
  await kube.close();
  await rm(dir, { recursive: true, force: true });
});

const records = () => new OrphanRecords(client, NAMESPACE, NAME, logger);
const signal = () => new AbortController().signal;

describe('orphan records', () => {
  it('a record written by one replica is read by another; adopting it back forgets it', async () => {
    const writer = records();
    expect(await writer.load()).toEqual({ ok: true, value: undefined });
    expect(writer.orphanedBy('team-a')).toEqual([]);
    await writer.record(id(1), { namespace: 'team-a', name: 'bot', orphanedAt: at(1) }, signal());
    await writer.record(id(2), { namespace: 'team-b', name: 'bot', orphanedAt: at(2) }, signal());
    const reader = records();
    await reader.load();
    expect(reader.orphanedBy('team-a')).toEqual([id(1)]);
    expect(reader.orphanedBy('team-b')).toEqual([id(2)]);
    await reader.forget(id(1), signal());
    await writer.load();
    expect(writer.orphanedBy('team-a')).toEqual([]);
    expect(writer.orphanedBy('team-b')).toEqual([id(2)]);
  });

  it('two writers that each read before the other wrote keep both records (the second re-reads on 409)', async () => {
    const first = records();
    const second = records();
    await first.record(id(1), { namespace: 'team-a', name: 'one', orphanedAt: at(1) }, signal());
    await second.record(id(2), { namespace: 'team-a', name: 'two', orphanedAt: at(2) }, signal());
    // Both in one update race: each read the same version, one of them must retry.
    await Promise.all([
      first.record(id(3), { namespace: 'team-a', name: 'three', orphanedAt: at(3) }, signal()),
      second.record(id(4), { namespace: 'team-a', name: 'four', orphanedAt: at(4) }, signal()),
    ]);
    const reader = records();
    await reader.load();
    expect([...reader.orphanedBy('team-a')].sort()).toEqual([id(1), id(2), id(3), id(4)]);
  });

  it('keeps at most MAX_RECORDS, dropping the oldest first whatever the key order', async () => {
    const data: Record<string, string> = {};
    // Keys sort the other way round from their age, as the API server returns them by name.
    for (let n = 0; n < MAX_RECORDS; n++) {
      data[id(MAX_RECORDS - n)] = JSON.stringify({ namespace: 'team-a', name: `o${n}`, orphanedAt: at(n) });
    }
    await client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: NAME, namespace: NAMESPACE },
      data,
    });
    const writer = records();
    await writer.record(
      id(999_999),
      { namespace: 'team-b', name: 'new', orphanedAt: at(MAX_RECORDS) },
      signal(),
    );
    const reader = records();
    await reader.load();
    expect(reader.orphanedBy('team-a')).toHaveLength(MAX_RECORDS - 1);
    // The oldest (orphanedAt at(0)) was keyed id(MAX_RECORDS): it is the one dropped.
    expect(reader.orphanedBy('team-a')).not.toContain(id(MAX_RECORDS));
    expect(reader.orphanedBy('team-b')).toEqual([id(999_999)]);
  });

  it('an unreadable entry is dropped (fails closed), the rest still count', async () => {
    await client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: NAME, namespace: NAMESPACE },
      data: {
        [id(1)]: '{not json',
        [id(2)]: JSON.stringify({ namespace: 'team-a', name: 'ok', orphanedAt: at(2) }),
      },
    });
    const reader = records();
    await reader.load();
    expect(reader.orphanedBy('team-a')).toEqual([id(2)]);
  });
});
