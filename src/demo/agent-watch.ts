// Follows the demo's AgentDeployments through watches, one per namespace they live in, so that
// the view sees every status the operator publishes. A read every 150 ms missed a revision
// phase the operator showed for less than that (CREATING, held until its first look at the
// revision, 100-200 ms with the demo's 60 ms phases), and the view then skipped it.
import { AGENT_DEPLOYMENTS } from '../operator/operator.js';
import type { KubeClient } from '../runtime/kube/client.js';
import type { Manifest } from './manifests.js';
import { sleep, systemClock } from '../runtime/clock.js';

/** The pause between a watch that ended and the next list. */
const ROUND_PAUSE_MS = 250;

const keyOf = (object: Manifest): string =>
  `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;

/**
 * The oldest of `objects`' resourceVersions, when all are numbers (etcd's and the emulator's
 * are); undefined otherwise, since Kubernetes promises no order between opaque versions.
 */
function oldestVersion(objects: Manifest[]): string | undefined {
  const versions = objects.map((object) => object.metadata.resourceVersion ?? '');
  if (versions.length === 0 || !versions.every((version) => /^[0-9]+$/.test(version))) return undefined;
  return versions.reduce((a, b) => (BigInt(a) <= BigInt(b) ? a : b));
}

/**
 * Calls `onChange` with the latest version of every one of `agents` (in their order) once all
 * have been seen, then after each change to one of them, until it returns true (resolves true)
 * or `signal` aborts (resolves false). `applied`, the agents as their apply answered, starts
 * the watches at the oldest of those versions, so that what changed between the apply and now
 * is shown too, in order; without it (or once a watch ends) each round starts from a list. A
 * watch the server ends, or an ERROR event (an expired version), starts a new round. What
 * `onChange` throws ends the following.
 */
export async function followAgents(
  client: KubeClient,
  agents: Manifest[],
  onChange: (objects: Manifest[]) => boolean,
  signal: AbortSignal,
  applied: Manifest[] = [],
): Promise<boolean> {
  const wanted = new Set(agents.map(keyOf));
  const namespaces = [...new Set(agents.map((agent) => agent.metadata.namespace ?? 'default'))];
  const latest = new Map<string, Manifest>();
  const replayFrom = new Map<string, string>();
  const appliedAgents = applied.filter((object) => object.kind === 'AgentDeployment');
  const appliedByKey = new Map(appliedAgents.map((object) => [keyOf(object), object]));
  if (agents.every((agent) => appliedByKey.has(keyOf(agent))))
    for (const namespace of namespaces) {
      const inNamespace = appliedAgents.filter(
        (object) => (object.metadata.namespace ?? 'default') === namespace,
      );
      const from = oldestVersion(inNamespace);
      if (from === undefined) continue;
      replayFrom.set(namespace, from);
      for (const object of inNamespace) if (wanted.has(keyOf(object))) latest.set(keyOf(object), object);
    }
  let finished = false;
  const changed = (): void => {
    const objects = agents.map((agent) => latest.get(keyOf(agent)));
    if (objects.every((object): object is Manifest => object !== undefined) && onChange(objects))
      finished = true;
  };
  while (!signal.aborted && !finished) {
    const round = new AbortController();
    const roundSignal = AbortSignal.any([signal, round.signal]);
    const follow = async (namespace: string): Promise<void> => {
      let from = replayFrom.get(namespace);
      // Replayed once: a later round starts from a list.
      replayFrom.delete(namespace);
      if (from === undefined) {
        const listed = await client.list<Manifest>(AGENT_DEPLOYMENTS, { namespace, signal: roundSignal });
        for (const item of listed.items) if (wanted.has(keyOf(item))) latest.set(keyOf(item), item);
        from = listed.resourceVersion;
      }
      changed();
      if (finished) return;
      const events = await client.watch<Manifest>(AGENT_DEPLOYMENTS, {
        namespace,
        resourceVersion: from,
        signal: roundSignal,
      });
      for await (const event of events) {
        if (event.type === 'ERROR') return;
        if (event.type === 'BOOKMARK' || !wanted.has(keyOf(event.object))) continue;
        if (event.type === 'DELETED') latest.delete(keyOf(event.object));
        else latest.set(keyOf(event.object), event.object);
        changed();
        if (finished) return;
      }
    };
    // The first namespace whose watch ends (finished, expired, closed, failed) ends the round.
    const endings = namespaces.map((namespace) =>
      follow(namespace).then(
        () => round.abort(),
        (error: unknown) => {
          // A watch cut by the round's own end is no failure; anything else is.
          const endedByTheRound = roundSignal.aborted;
          round.abort();
          if (!endedByTheRound) throw error;
        },
      ),
    );
    const outcomes = await Promise.allSettled(endings);
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined && !signal.aborted) throw failure.reason;
    // A server that ends every watch at once must not be listed in a tight loop.
    if (!finished) await sleep(systemClock, ROUND_PAUSE_MS, signal);
  }
  return finished;
}
