// Who may delete through the default connection, end to end: a deletion in a namespace that
// --data-deletion-namespaces does not list stays Pending, Stalled with DataDeletionNotAllowed
// and the rule, makes no call to the platform at all (no delete, no count, no verification),
// and says so in one Warning event. An operator restarted with the namespace listed carries it
// through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_DELETIONS, TRACE_DELETIONS } from '../../src/reconcilers/deletion/setup.js';
import type { KubeObject } from '../../src/runtime/kube/objects.js';
import { EVENTS, NAMESPACE, type Stack } from '../operator/harness.js';
import {
  DATA_DELETE_ROUTES,
  DATA_READ_ROUTES,
  callsTo,
  createDataset,
  createExample,
  createExampleDeletion,
  createNamespace,
  createTraceDeletion,
  ingestTrace,
  isPhase,
  readExample,
  readTrace,
  startDeletionStack,
  stalledWith,
  waitForDeletion,
} from './stack.js';

const OUTSIDER = 'team-b';

describe('--data-deletion-namespaces', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startDeletionStack();
    await createNamespace(stack, OUTSIDER);
  });
  afterAll(() => stack.close());

  it('keeps a deletion from an unlisted namespace blocked with no platform call, until the operator lists it', async () => {
    const traces = [
      await ingestTrace(stack, 'outsider', { user_id: 'u-b' }),
      await ingestTrace(stack, 'outsider', { user_id: 'u-b' }),
    ];
    const examples = [await createExample(stack, await createDataset(stack, 'outsider'), { run: 'b' })];
    const calls = async () => ({
      deletes: await callsTo(stack, DATA_DELETE_ROUTES),
      reads: await callsTo(stack, DATA_READ_ROUTES),
    });
    const before = await calls();

    const traceRef = { namespace: OUTSIDER, name: 'erase-u-b' };
    const exampleRef = { namespace: OUTSIDER, name: 'erase-examples' };
    await createTraceDeletion(stack, traceRef, { metadata: { user_id: 'u-b' }, maxMatches: 10 });
    await createExampleDeletion(stack, exampleRef, { exampleIds: examples, hardDelete: true });
    const blocked = [
      await waitForDeletion(stack, TRACE_DELETIONS, traceRef, stalledWith('DataDeletionNotAllowed')),
      await waitForDeletion(stack, EXAMPLE_DELETIONS, exampleRef, stalledWith('DataDeletionNotAllowed')),
    ];
    for (const object of blocked) {
      expect(object.status?.phase).toBe('Pending');
      expect(object.status?.message).toBe(
        `the default connection: namespace ${OUTSIDER} may not delete data through it (the operator's --data-deletion-namespaces, Helm value dataDeletionNamespaces, allows ${NAMESPACE})`,
      );
    }
    expect(await calls()).toEqual(before);
    const events = await stack.client.list<KubeObject & { reason?: string; type?: string; series?: unknown }>(
      EVENTS,
      { namespace: OUTSIDER },
    );
    expect(events.items.map((event) => [event.type, event.reason, event.series])).toEqual([
      ['Warning', 'DataDeletionNotAllowed', undefined],
      ['Warning', 'DataDeletionNotAllowed', undefined],
    ]);
    expect((await Promise.all(traces.map((id) => readTrace(stack, id)))).map((read) => read.status)).toEqual([
      200, 200,
    ]);
    expect((await readExample(stack, examples[0] ?? '')).status).toBe(200);

    await Promise.all(stack.operators.map((operator) => operator.stop()));
    await stack.startOperator({ dataDeletionNamespaces: [NAMESPACE, OUTSIDER] });
    const done = [
      await waitForDeletion(stack, TRACE_DELETIONS, traceRef, isPhase('Completed')),
      await waitForDeletion(stack, EXAMPLE_DELETIONS, exampleRef, isPhase('Completed')),
    ];
    for (const object of done) expect(stalledWith('DataDeletionNotAllowed')(object)).toBe(false);
    expect((await calls()).deletes).toBe(before.deletes + 2);
    expect((await readExample(stack, examples[0] ?? '')).status).toBe(404);
    expect((await Promise.all(traces.map((id) => readTrace(stack, id)))).map((read) => read.status)).toEqual([
      404, 404,
    ]);
  });
});
