// A connection user's pass runs after its connection's key was read: not at all when the read
// failed (the pass fails and backs off), and without waiting when there is nothing to read.
import { describe, expect, it } from 'vitest';
import { afterConnectionKey, type LoadConnectionKey } from '../../src/connections/key-before-pass.js';
import type { ConnectionUser } from '../../src/connections/agentdeployment-connection.js';
import { awaitChange } from '../../src/runtime/reconcile/result.js';

const signal = new AbortController().signal;
const user = (connectionRef?: { kind: string; name: string }): ConnectionUser =>
  ({
    metadata: { namespace: 'team-a', name: 'a' },
    spec: connectionRef ? { connectionRef } : {},
  }) as ConnectionUser;

describe('afterConnectionKey', () => {
  it('reads the key first, then runs the pass', async () => {
    const order: string[] = [];
    const load: LoadConnectionKey = () => {
      order.push('load');
      return Promise.resolve({ ok: true, value: undefined });
    };
    const reconcile = afterConnectionKey(
      load,
      () => user({ kind: 'PlatformConnection', name: 'c' }),
      () => {
        order.push('pass');
        return Promise.resolve(awaitChange);
      },
    );
    expect(await reconcile('team-a/a', signal)).toEqual(awaitChange);
    expect(order).toEqual(['load', 'pass']);
  });

  it('fails the pass, without running it, when the key could not be read', async () => {
    let passes = 0;
    const load: LoadConnectionKey = () =>
      Promise.resolve({
        ok: false,
        error: { kind: 'Transient', message: 'reading Secret "k" failed (HTTP 503)' },
      });
    const reconcile = afterConnectionKey(
      load,
      () => user({ kind: 'PlatformConnection', name: 'c' }),
      () => {
        passes += 1;
        return Promise.resolve(awaitChange);
      },
    );
    expect(await reconcile('team-a/a', signal)).toEqual({
      kind: 'backoff',
      failure: { message: 'reading Secret "k" failed (HTTP 503)' },
    });
    expect(passes).toBe(0);
  });

  it('runs the pass at once for an object on the default connection, or one gone from the cache', async () => {
    const load: LoadConnectionKey = () => undefined;
    const pass = Promise.resolve(awaitChange);
    const reconcile = afterConnectionKey(
      load,
      (key) => (key === 'gone' ? undefined : user()),
      () => pass,
    );
    // The very promise of the pass: no extra hop.
    expect(reconcile('team-a/a', signal)).toBe(pass);
    expect(reconcile('gone', signal)).toBe(pass);
  });
});
