// A write's answer must say what happened to the store. Watchers are told of a change inside
// the write that made it, after the object is stored; a watcher that failed there turned the
// write's answer into a 500 although the object was stored (and a retry then met
// AlreadyExists). Now such a watcher's stream is cut and the failure logged, and the write
// answers what it did.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';
import { TableBuilder } from '../../src/sim/kube/table.js';
import { captureLog } from '../support/log-capture.js';

const SECRETS = '/api/v1/namespaces/default/secrets';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

const log = captureLog('kube-emulator');

let emulator: KubeEmulator;

beforeAll(async () => {
  emulator = await startKubeEmulator({
    logger: log.logger,
  });
});
afterAll(async () => {
  await emulator.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  log.clear();
});

describe('a watcher that fails while it is told of a write', () => {
  it('has its stream cut and logged; the write answers 201 and the object is there', async () => {
    const list = await fetch(`${emulator.url}${SECRETS}`);
    const { metadata } = (await list.json()) as { metadata: { resourceVersion: string } };
    // From the current version: no initial events, only what the write below produces.
    const watch = await fetch(
      `${emulator.url}${SECRETS}?watch=1&resourceVersion=${metadata.resourceVersion}`,
      {
        headers: { accept: TABLE },
      },
    );
    expect(watch.status).toBe(200);
    const body = watch.body;
    if (body === null) throw new Error('watch has no body');
    const outcome = (async () => {
      try {
        for await (const _chunk of body) {
          // Nothing is expected before the cut.
        }
        return 'ended cleanly';
      } catch {
        return 'cut';
      }
    })();

    vi.spyOn(TableBuilder.prototype, 'table').mockImplementationOnce(() => {
      throw new Error('table rendering broke');
    });
    const created = await fetch(`${emulator.url}${SECRETS}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'watched' }, stringData: { a: 'b' } }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${emulator.url}${SECRETS}/watched`)).status).toBe(200);
    expect(await outcome).toBe('cut');
    await expect.poll(() => log.text()).toContain('table rendering broke');
  });
});
