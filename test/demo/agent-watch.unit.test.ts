// The demo's view follows its AgentDeployments through watches started at the version their
// apply answered, so a revision phase the operator showed before the view began (while the
// demo set up its second connection) is still shown, in order.
import { describe, expect, it } from 'vitest';
import { followAgents } from '../../src/demo/agent-watch.js';
import type { Manifest } from '../../src/demo/manifests.js';
import type { KubeClient } from '../../src/runtime/kube/client.js';
import type { WatchEvent } from '../../src/runtime/kube/objects.js';

function agent(name: string, resourceVersion: string, phase?: string): Manifest {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name, namespace: 'demo', resourceVersion },
    ...(phase === undefined ? {} : { status: { revisionStatus: phase } }),
  };
}

/** A client whose watches replay `history` after the version asked for; lists answer `listed`. */
function historyClient(history: Manifest[], listed: Manifest[]) {
  const calls: string[] = [];
  const client = {
    list: (_type: unknown, options: { namespace?: string }) => {
      calls.push(`list ${options.namespace ?? ''}`);
      return Promise.resolve({ items: listed, resourceVersion: '100' });
    },
    watch: (_type: unknown, options: { resourceVersion?: string; signal?: AbortSignal }) => {
      // As the real client: an aborted signal opens nothing.
      if (options.signal?.aborted === true) return Promise.reject(new Error('aborted'));
      calls.push(`watch from ${options.resourceVersion ?? ''}`);
      const from = Number(options.resourceVersion);
      const events: WatchEvent<Manifest>[] = history
        .filter((object) => Number(object.metadata.resourceVersion) > from)
        .map((object) => ({ type: 'MODIFIED', object }));
      return Promise.resolve(
        (async function* () {
          yield* events;
        })(),
      );
    },
  } as unknown as KubeClient;
  return { client, calls };
}

const phaseOf = (object: Manifest): string =>
  String((object as { status?: { revisionStatus?: string } }).status?.revisionStatus ?? '-');

describe('the demo view following its agents', () => {
  it('shows every change since the apply, though the view began after them', async () => {
    const applied = [agent('research', '10'), agent('support', '12')];
    const history = [
      agent('research', '13', 'CREATING'),
      agent('support', '14', 'CREATING'),
      agent('research', '15', 'AWAITING_DEPLOY'),
      agent('research', '16', 'DEPLOYED'),
      agent('support', '17', 'DEPLOYED'),
    ];
    const { client, calls } = historyClient(history, []);
    const seen: string[] = [];
    const finished = await followAgents(
      client,
      applied,
      (objects) => {
        seen.push(objects.map(phaseOf).join(' '));
        return objects.every((object) => phaseOf(object) === 'DEPLOYED');
      },
      new AbortController().signal,
      applied,
    );
    expect(finished).toBe(true);
    expect(seen).toEqual([
      '- -',
      'CREATING -',
      'CREATING CREATING',
      'AWAITING_DEPLOY CREATING',
      'DEPLOYED CREATING',
      'DEPLOYED DEPLOYED',
    ]);
    expect(calls).toEqual(['watch from 10']);
  });

  it('starts from a list when it has no applied versions, and again after a watch ends', async () => {
    const listed = [agent('research', '90', 'CREATING')];
    const { client, calls } = historyClient([], listed);
    const stop = new AbortController();
    let looks = 0;
    const finished = await followAgents(
      client,
      [agent('research', '1')],
      () => {
        looks += 1;
        if (looks === 2) stop.abort();
        return false;
      },
      stop.signal,
    );
    expect(finished).toBe(false);
    expect(calls).toEqual(['list demo', 'watch from 100', 'list demo']);
  });

  it('ends with what the view throws (a Stalled agent)', async () => {
    const { client } = historyClient([], [agent('research', '5', 'CREATING')]);
    await expect(
      followAgents(
        client,
        [agent('research', '1')],
        () => {
          throw new Error('research is Stalled');
        },
        new AbortController().signal,
      ),
    ).rejects.toThrow('research is Stalled');
  });
});
