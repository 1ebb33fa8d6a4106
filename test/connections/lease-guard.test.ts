// A replica that lost its lease sends nothing on any connection: the pooled clients of
// PlatformConnections and the platform data clients of deletions ask the same guard as the
// default connection's client, right before each request. (The default client's guard is in
// test/chaos/caller-identity.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { ControlPlaneClientPool } from '../../src/connections/client-pool.js';
import { RateBudget } from '../../src/controlplane/budget/index.js';
import { PlatformDataClient } from '../../src/platformdata/index.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  startControlPlaneEmulator,
  type ApiCall,
  type ControlPlaneEmulator,
} from '../../src/sim/controlplane/index.js';

const KEY = 'lease-guard-key';
const SESSION = '00000000-0000-4000-8000-000000000001';
const TRACE = '00000000-0000-4000-8000-000000000002';

describe('the lease guard on every connection', () => {
  let emulator: ControlPlaneEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it("a PlatformConnection's pooled client sends nothing while the guard says no", async () => {
    const calls: ApiCall[] = [];
    emulator = await startControlPlaneEmulator({
      apiKeys: [{ key: KEY }],
      onApiRequest: (call) => calls.push(call),
    });
    let leading = false;
    const pool = new ControlPlaneClientPool({ mayCall: () => leading });
    const { client } = pool.clientFor({
      user: 'PlatformConnection/team-a/main',
      controlPlaneUrl: emulator.url,
      region: 'us',
      credentials: { apiKey: KEY },
      fingerprint: 'f1',
    });
    const refused = await client.listDeployments();
    expect(refused).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/does not hold the lease/) },
    });
    expect(calls).toEqual([]);
    leading = true;
    expect((await client.listDeployments()).ok).toBe(true);
    expect(calls.map((call) => call.method)).toEqual(['GET']);
    await pool.close();
  });

  it("a deletion's platform data client sends nothing while the guard says no", async () => {
    // A stand-in platform that counts what reaches it and accepts it.
    let received = 0;
    const server = createServer((request, response) => {
      received += 1;
      request.resume();
      request.on('end', () => response.writeHead(202, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let leading = false;
    const budget = new RateBudget({ region: 'us' });
    const client = new PlatformDataClient({
      baseUrl: `http://127.0.0.1:${port}`,
      credentials: { apiKey: KEY },
      budget,
      mayCall: () => leading,
    });
    try {
      const refused = await client.deleteTraces(SESSION, [TRACE]);
      expect(refused).toMatchObject({
        ok: false,
        error: { message: expect.stringMatching(/does not hold the lease/) },
      });
      expect(received).toBe(0);
      leading = true;
      await client.deleteTraces(SESSION, [TRACE]);
      expect(received).toBe(1);
    } finally {
      await client.close();
      budget.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
