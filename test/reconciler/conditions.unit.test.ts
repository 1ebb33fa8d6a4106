import { describe, expect, it } from 'vitest';
import { isReadyAt, setConditions } from '../../src/reconcilers/agentdeployment/conditions.js';
import { conditionsFor, type SyncState } from '../../src/reconcilers/agentdeployment/sync-state.js';

const T0 = new Date('2026-11-21T10:00:00Z');
const T1 = new Date('2026-11-21T10:05:00Z');

describe('kstatus conditions', () => {
  it('keeps lastTransitionTime when a status does not flip, and moves it when it does', () => {
    const first = setConditions([], conditionsFor({ kind: 'Creating', message: 'creating' }), 1, T0);
    const again = setConditions(
      first,
      conditionsFor({ kind: 'RevisionInProgress', message: 'building' }),
      1,
      T1,
    );
    expect(again.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(T0.toISOString());
    const ready = setConditions(again, conditionsFor({ kind: 'Deployed', message: 'ok' }), 1, T1);
    expect(ready.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      lastTransitionTime: T1.toISOString(),
      observedGeneration: 1,
    });
    expect(ready.map((c) => c.type)).toEqual(['Ready', 'Reconciling', 'Stalled']);
  });

  const table: Array<[SyncState['kind'], string, string, string]> = [
    ['Deployed', 'True', 'False', 'False'],
    ['Creating', 'False', 'True', 'False'],
    ['RevisionInProgress', 'False', 'True', 'False'],
    ['Throttled', 'False', 'True', 'False'],
    ['ControlPlaneUnavailable', 'False', 'True', 'False'],
    ['SecretNotFound', 'False', 'True', 'False'],
    ['RevisionFailed', 'False', 'False', 'True'],
    ['Rejected', 'False', 'False', 'True'],
    ['InvalidSpec', 'False', 'False', 'True'],
    ['NameConflict', 'False', 'False', 'True'],
  ];
  it.each(table)('%s publishes Ready=%s Reconciling=%s Stalled=%s', (kind, ready, reconciling, stalled) => {
    const conditions = setConditions([], conditionsFor({ kind, message: 'm' } as SyncState), 4, T0);
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', ready, kind],
      ['Reconciling', reconciling, kind],
      ['Stalled', stalled, kind],
    ]);
  });

  it('leaves Ready untouched while suspended', () => {
    const ready = setConditions([], conditionsFor({ kind: 'Deployed', message: 'ok' }), 2, T0);
    const suspended = setConditions(ready, conditionsFor({ kind: 'Suspended', message: 'paused' }), 3, T1);
    expect(suspended.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      observedGeneration: 2,
    });
  });

  it('is Ready only for the generation it observed', () => {
    const ready = setConditions([], conditionsFor({ kind: 'Deployed', message: 'ok' }), 2, T0);
    expect(isReadyAt(ready, 2)).toBe(true);
    expect(isReadyAt(ready, 3)).toBe(false);
  });
});
