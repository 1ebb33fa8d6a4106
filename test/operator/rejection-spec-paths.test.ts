// A refusal of the control plane reaches the user in the names of the spec they wrote, not
// in the wire's: the operator end to end against both emulators. An unknown listener (a
// valid UUID, so admission lets it through; only the control plane knows its listeners) is
// refused with a 400 naming `source_config.listener_id`; the Stalled condition and the event
// name `spec.sourceConfig.listenerId`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Stack, condition, containerAgent } from './harness.js';

const UNKNOWN_LISTENER = '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5';

let stack: Stack;

beforeEach(async () => {
  stack = await Stack.start();
});
afterEach(async () => {
  await stack.close();
});

describe('control-plane refusals name the spec path the user wrote', () => {
  it('an unknown listener is reported as spec.sourceConfig.listenerId', async () => {
    await stack.apply(containerAgent('lost', UNKNOWN_LISTENER));
    const object = await stack.waitFor(
      'lost',
      (o) => condition(o, 'Stalled')?.reason === 'Rejected',
      'Stalled: Rejected',
    );
    const message = condition(object, 'Stalled')?.message ?? '';
    expect(message).toContain(
      'spec.sourceConfig.listenerId: names something that does not exist in this tenant',
    );
    expect(message).not.toMatch(/source_config|listener_id/);
    const notes = (
      await stack.eventsOnce(
        'lost',
        (events) => events.some((event) => event.reason === 'Rejected'),
        'Rejected',
      )
    ).map((event) => event.note ?? '');
    expect(notes.some((note) => note.includes('spec.sourceConfig.listenerId'))).toBe(true);
    expect(notes.filter((note) => /source_config|listener_id/.test(note))).toEqual([]);
    expect(await stack.deployments()).toEqual([]);
  });
});
