// Listener and integration names resolved through the connection's own control plane (the
// emulator over HTTP): found, unknown with the names that exist, cached, and re-read after a
// miss no more than once a minute.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlPlaneClient, type ControlPlaneApi } from '../../src/controlplane/client/index.js';
import { CatalogNames } from '../../src/connections/catalog-names.js';
import { startControlPlaneEmulator, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';

const KEY = 'catalog-names-key-4c2e';
let emulator: ControlPlaneEmulator;
let client: ControlPlaneClient;
let calls: number;
let counted: Pick<ControlPlaneApi, 'listListeners' | 'listIntegrations'>;
let now: number;

beforeEach(async () => {
  emulator = await startControlPlaneEmulator({ apiKeys: [{ key: KEY }] });
  client = new ControlPlaneClient({ baseUrl: emulator.url, credentials: { apiKey: KEY } });
  calls = 0;
  now = 0;
  counted = {
    listListeners: (query, options) => {
      calls += 1;
      return client.listListeners(query, options);
    },
    listIntegrations: (options) => {
      calls += 1;
      return client.listIntegrations(options);
    },
  };
});

afterEach(async () => {
  await client.close();
  await emulator.close();
});

describe('catalog names', () => {
  it('a listener name (its compute_id) resolves to its id, from the cache the second time', async () => {
    const page = await client.listListeners();
    const listener = page.ok ? page.value.resources[0] : undefined;
    if (listener === undefined) throw new Error('the emulator seeds a listener');
    const names = new CatalogNames({ clock: { now: () => now } });
    expect(await names.listenerId(counted, 'conn', listener.compute_id)).toEqual({
      ok: true,
      id: listener.id,
    });
    expect(await names.listenerId(counted, 'conn', listener.compute_id)).toEqual({
      ok: true,
      id: listener.id,
    });
    expect(calls).toBe(1);
  });

  it('an unknown name says which names exist; a miss re-reads at most once a minute', async () => {
    const list = await client.listIntegrations();
    const integration = list.ok ? list.value[0] : undefined;
    if (integration === undefined) throw new Error('the emulator seeds an integration');
    const names = new CatalogNames({ clock: { now: () => now } });
    const unknown = await names.integrationId(counted, 'conn', 'no-such-integration');
    expect(unknown).toEqual({
      ok: false,
      kind: 'UnknownName',
      message: `no integration named "no-such-integration"; the workspace has "${integration.name}"`,
    });
    await names.integrationId(counted, 'conn', 'no-such-integration');
    expect(calls).toBe(1);
    now += 60_000;
    await names.integrationId(counted, 'conn', 'no-such-integration');
    expect(calls).toBe(2);
  });

  it('a refused read is a Failure carrying the client error, not an unknown name', async () => {
    const wrong = new ControlPlaneClient({ baseUrl: emulator.url, credentials: { apiKey: 'not-a-key-123' } });
    const result = await new CatalogNames().listenerId(wrong, 'other', 'x');
    await wrong.close();
    expect(result).toMatchObject({ ok: false, kind: 'Failure', error: { kind: 'Terminal', status: 401 } });
  });
});
