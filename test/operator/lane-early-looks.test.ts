// A lane's poller gets the lane's reading of spare budget for its early looks at new revisions:
// on an idle key a revision tracked in flight is listed a quarter interval after it began,
// not only at the interval (the poller's own rules are in fleet-poller.unit.test.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RateBudget } from '../../src/controlplane/budget/rate-budget.js';
import { ControlPlaneClient } from '../../src/controlplane/client/control-plane-client.js';
import { ConnectionLanes } from '../../src/reconcilers/agentdeployment/connection-lanes.js';

/** A control plane that answers every list with an empty page and counts the lists. */
async function listServer(): Promise<{ server: Server; url: string; lists: () => number }> {
  let lists = 0;
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url?.startsWith('/v2/deployments') === true) lists += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ resources: [], offset: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, lists: () => lists };
}

describe("a lane's early looks", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('list a new revision a quarter interval after it began when the key is idle', async () => {
    const { server, url, lists } = await listServer();
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const budget = new RateBudget();
    const client = new ControlPlaneClient({
      baseUrl: url,
      credentials: { apiKey: 'lane-early-looks' },
      budget,
    });
    cleanup.push(async () => {
      budget.close();
      await client.close();
    });
    let now = 1_000_000;
    const lanes = new ConnectionLanes({
      enqueue: () => undefined,
      concurrency: 4,
      inflightPollMs: 2_000,
      now: () => now,
      onHealthChange: () => undefined,
      logger: pino({ level: 'silent' }),
    });
    const lane = lanes.laneFor('default', client, 'default');
    lane.poller.track('d1', 'ns/a', 'inflight');
    now += 400;
    await lane.poller.tick();
    expect(lists()).toBe(0);
    now += 100; // a quarter of the 2 s interval
    await lane.poller.tick();
    expect(lists()).toBe(1);
  });
});
