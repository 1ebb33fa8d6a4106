// How the AgentDeployment controller's workers are shared between connections: one shard of
// the work queue per connection an object names, each turn as long as its key is fast. Beside
// a saturated slow key, a turn handed to the slow key mostly tells an object to wait for a
// token; the fast key's objects get the workers in proportion to the calls it may make.
import { describe, expect, it } from 'vitest';
import type { AgentDeploymentSpec } from '../../src/api/agentdeployment/index.js';
import type { ConnectionKind } from '../../src/api/connection/names.js';
import { RateBudget } from '../../src/controlplane/budget/rate-budget.js';
import {
  connectionShardOf,
  connectionTurnSizeOf,
  MAX_TURN_SIZE,
  turnSizeForRate,
} from '../../src/reconcilers/agentdeployment/connection-turns.js';
import type { AgentDeploymentObject } from '../../src/reconcilers/agentdeployment/kube-port.js';
import type { ControlPlaneLane, LaneResolution } from '../../src/reconcilers/agentdeployment/ports.js';
import { WorkQueue } from '../../src/runtime/workqueue/queue.js';
import { FakeClock } from '../controlplane-client/support/fake-clock.js';
import { FakeClock as FakeTimers } from '../runtime/support/fake-clock.js';
import { loneLaneOn } from './support/lone-lane.js';

function objectOn(
  namespace: string,
  name: string,
  connection?: string,
  kind: ConnectionKind = 'PlatformConnection',
): AgentDeploymentObject {
  const spec: Partial<AgentDeploymentSpec> =
    connection === undefined ? {} : { connectionRef: { kind, name: connection } };
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { namespace, name },
    spec: spec as AgentDeploymentObject['spec'],
  };
}

function laneAt(count: number, windowSeconds: number, apiKey: string): ControlPlaneLane {
  const budget = new RateBudget({ overrides: { default: { count, windowSeconds } }, clock: new FakeClock() });
  return loneLaneOn(budget, apiKey).lane;
}

describe('connection turns', () => {
  it('gives a key one key a turn for each 10 calls a second it allows, from 1 to the longest turn', () => {
    expect(turnSizeForRate(100)).toBe(10);
    expect(turnSizeForRate(20)).toBe(2);
    expect(turnSizeForRate(1.5)).toBe(1);
    expect(turnSizeForRate(0)).toBe(1);
    expect(turnSizeForRate(Number.NaN)).toBe(1);
    expect(turnSizeForRate(1_000)).toBe(MAX_TURN_SIZE);
  });

  it('sizes a turn by the rate of the key behind the object, one when its connection is refused', () => {
    const lanes = new Map<string, ControlPlaneLane>([
      ['us', laneAt(1000, 10, 'turns-us-key')],
      ['eu', laneAt(200, 10, 'turns-eu-key')],
    ]);
    const connectionOf = (object: AgentDeploymentObject): LaneResolution => {
      const name = connectionShardOf(object).split('/').pop() ?? '';
      const lane = lanes.get(name);
      return lane === undefined
        ? { ok: false, reason: 'ConnectionNotReady', message: `PlatformConnection ${name} is not Ready` }
        : { ok: true, lane };
    };
    expect(connectionTurnSizeOf(objectOn('team-a', 'o', 'us'), connectionOf)).toBe(10);
    expect(connectionTurnSizeOf(objectOn('team-a', 'o', 'eu'), connectionOf)).toBe(2);
    expect(connectionTurnSizeOf(objectOn('team-a', 'o', 'broken'), connectionOf)).toBe(1);
    // Gone from the cache between its add and its turn.
    expect(connectionTurnSizeOf(undefined, connectionOf)).toBe(1);
  });

  it("names one shard per connection, a namespace's own apart from another's of the same name", () => {
    expect(connectionShardOf(objectOn('team-a', 'o', 'eu'))).toBe('PlatformConnection/team-a/eu');
    expect(connectionShardOf(objectOn('team-b', 'o', 'eu'))).toBe('PlatformConnection/team-b/eu');
    expect(connectionShardOf(objectOn('team-a', 'o', 'eu', 'ClusterPlatformConnection'))).toBe(
      'ClusterPlatformConnection/eu',
    );
    expect(connectionShardOf(objectOn('team-a', 'o'))).toBe('');
  });

  it('hands the workers 5 objects of a 1000/10 key for each of a 200/10 key while both wait', async () => {
    const lanes = new Map<string, ControlPlaneLane>([
      ['us', laneAt(1000, 10, 'turns-us-key')],
      ['eu', laneAt(200, 10, 'turns-eu-key')],
    ]);
    const objects = new Map<string, AgentDeploymentObject>();
    for (let i = 0; i < 100; i += 1) {
      for (const region of ['eu', 'us'])
        objects.set(`team-a/${region}-${i}`, objectOn('team-a', `${region}-${i}`, region));
    }
    const connectionOf = (object: AgentDeploymentObject): LaneResolution => {
      const lane = lanes.get(connectionShardOf(object).split('/').pop() ?? '');
      return lane === undefined
        ? { ok: false, reason: 'ConnectionNotFound', message: 'not found' }
        : { ok: true, lane };
    };
    const queue = new WorkQueue({
      name: 'turns',
      clock: new FakeTimers(),
      shardOf: (key) => connectionShardOf(objects.get(key)),
      shardTurnSizeOf: (key) => connectionTurnSizeOf(objects.get(key), connectionOf),
    });
    for (const key of objects.keys()) queue.add(key);
    const taken: string[] = [];
    for (let i = 0; i < 120; i += 1) taken.push((await queue.get()) ?? '');
    const us = taken.filter((key) => key.includes('/us-')).length;
    const eu = taken.filter((key) => key.includes('/eu-')).length;
    expect({ us, eu }).toEqual({ us: 100, eu: 20 });
  });
});
