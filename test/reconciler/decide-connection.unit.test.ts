// The connection decision, row by row: each case names the situation, the reason the action is
// right, and the action. What the shell observed (caches, the credential's version, this
// process's memory of the last probe) in, one action out; no call is made to decide.
import { describe, expect, it } from 'vitest';
import type { ConnectionAction } from '../../src/reconcilers/connection/action.js';
import { decideConnection } from '../../src/reconcilers/connection/decide.js';
import type { ConnectionObserved, ProbeMemory } from '../../src/reconcilers/connection/observed.js';
import { decideTable, type DecideRow } from '../support/decide-table.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const MINUTE = 60_000;

/** The last probe: made with generation 1 and credential version 7, the next due in five minutes. */
const PROBED: ProbeMemory = { nextAt: NOW + 5 * MINUTE, failures: 0, generation: 1, credentialVersion: '7' };

function observed(overrides: Partial<ConnectionObserved> = {}): ConnectionObserved {
  return {
    generation: 1,
    deleting: false,
    hasFinalizer: true,
    users: [],
    otherShards: [],
    credential: { ok: true, version: '7' },
    memory: PROBED,
    now: NOW,
    ...overrides,
  };
}

const USERS = ['team-a/bot', 'team-b/helper'];
/** Shard batch's live entry: two of its AgentDeployments name the connection. */
const BATCH = [{ shard: 'batch', usedBy: 2 }];

const rows: Array<DecideRow<ConnectionObserved, ConnectionAction, ConnectionAction>> = [
  // ---- deletion ----
  {
    name: 'deleting while AgentDeployments still name it',
    reason: 'their calls would lose their key: keep the finalizer and say which objects hold it',
    given: observed({ deleting: true, users: USERS }),
    expect: { kind: 'holdForUsers', users: USERS, otherShards: [] },
  },
  {
    name: 'deleting while used, the finalizer already gone',
    reason: 'the users are said whatever the finalizer: the shell decides what it can still hold',
    given: observed({ deleting: true, hasFinalizer: false, users: USERS }),
    expect: { kind: 'holdForUsers', users: USERS, otherShards: [] },
  },
  {
    name: 'deleting, unused in this shard, another shard still using it',
    reason: 'this shard sees only its own objects: another live shard’s users still need the key',
    given: observed({ deleting: true, otherShards: BATCH }),
    expect: { kind: 'holdForUsers', users: [], otherShards: BATCH },
  },
  {
    name: 'deleting, used here and in another shard',
    reason: 'both are said: the names of this shard’s users, the count of the other’s',
    given: observed({ deleting: true, users: USERS, otherShards: BATCH }),
    expect: { kind: 'holdForUsers', users: USERS, otherShards: BATCH },
  },
  {
    name: 'deleting, no user left',
    reason: 'nothing depends on it: remove the finalizer',
    given: observed({ deleting: true }),
    expect: { kind: 'releaseFinalizer' },
  },
  {
    name: 'deleting, unused, without the finalizer',
    reason: 'released already: nothing left to do, not even a probe',
    given: observed({ deleting: true, hasFinalizer: false, credential: { ok: false, message: 'x' } }),
    expect: { kind: 'done' },
  },
  // ---- a live connection ----
  {
    name: 'a new connection without the finalizer',
    reason: 'the finalizer comes first, so that deletion can wait for its users',
    given: observed({ hasFinalizer: false, memory: undefined }),
    expect: { kind: 'addFinalizer' },
  },
  {
    name: 'a new connection without the finalizer whose key Secret is missing',
    reason: 'the finalizer does not depend on the credential',
    given: observed({ hasFinalizer: false, credential: { ok: false, message: 'Secret keys not found' } }),
    expect: { kind: 'addFinalizer' },
  },
  {
    name: 'the key Secret or its key is missing',
    reason: 'no probe without a key: say so (the Secret’s watch wakes the connection)',
    given: observed({ credential: { ok: false, message: 'Secret team-a/keys has no key "apiKey"' } }),
    expect: { kind: 'credentialMissing', message: 'Secret team-a/keys has no key "apiKey"' },
  },
  {
    name: 'never probed by this process (a new connection, or after a restart)',
    reason: 'Ready is not known until one probe says so',
    given: observed({ memory: undefined }),
    expect: { kind: 'probe' },
  },
  {
    name: 'the spec changed since the last probe',
    reason: 'another URL or region may answer otherwise: probe now, not at the slow pace',
    given: observed({ generation: 2 }),
    expect: { kind: 'probe' },
  },
  {
    name: 'the key Secret changed since the last probe',
    reason: 'a rotated key may be refused: probe now',
    given: observed({ credential: { ok: true, version: '8' } }),
    expect: { kind: 'probe' },
  },
  {
    name: 'the next probe due now',
    reason: 'the slow timer ran out: probe again',
    given: observed({ now: PROBED.nextAt }),
    expect: { kind: 'probe' },
  },
  {
    name: 'probed with this spec and key, the next probe not due',
    reason: 'nothing changed: wait for the timer, no call',
    given: observed({ now: NOW + MINUTE }),
    expect: { kind: 'wait', ms: 4 * MINUTE },
  },
  {
    name: 'probed and failing, the backoff not over',
    reason: 'the failure count is the shell’s: decide waits until the time it set',
    given: observed({ memory: { ...PROBED, failures: 3, nextAt: NOW + 30_000 } }),
    expect: { kind: 'wait', ms: 30_000 },
  },
];

decideTable('decideConnection', decideConnection, rows, {
  match: 'equal',
  covers: {
    all: ['holdForUsers', 'releaseFinalizer', 'addFinalizer', 'credentialMissing', 'probe', 'wait', 'done'],
    of: (_given, action) => action.kind,
  },
});

describe('decideConnection', () => {
  it('never probes a connection that is being deleted, whatever its memory says', () => {
    for (const { given } of rows) {
      const action = decideConnection({ ...given, deleting: true, memory: undefined });
      expect(['holdForUsers', 'releaseFinalizer', 'done']).toContain(action.kind);
    }
  });
});
