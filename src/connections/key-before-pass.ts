// A connection user's pass reads its connection's key Secret first. The registry resolves a
// connection from caches only, and Secret values are read on demand (by name, GET): a new
// process (a restart, a new leader) has read none, so without this its first passes over
// settled objects would find a Ready connection's key "not found", call the connection not
// Ready and flip every object they reached to ConnectionNotReady (a Warning each), until the
// connection controller's own pass had read the key. Once read, the check is a version
// comparison: no request.
import type { Reconcile } from '../runtime/controller/controller.js';
import { failed } from '../runtime/reconcile/result.js';
import type { Outcome } from '../reconcilers/agentdeployment/ports.js';
import type { ConnectionUser } from './agentdeployment-connection.js';

/** Reads the key Secret of the connection `user` names; undefined (no await) when it names none. */
export type LoadConnectionKey = (
  user: ConnectionUser,
  signal: AbortSignal,
) => Promise<Outcome<void>> | undefined;

/** `reconcile`, after the key of the connection of the object at `key` has been read. */
export function afterConnectionKey(
  load: LoadConnectionKey,
  objectOf: (key: string) => ConnectionUser | undefined,
  reconcile: Reconcile,
): Reconcile {
  return (key, signal) => {
    const object = objectOf(key);
    const loading = object === undefined ? undefined : load(object, signal);
    if (loading === undefined) return reconcile(key, signal);
    return loading.then((loaded) =>
      loaded.ok ? reconcile(key, signal) : failed({ message: loaded.error.message }),
    );
  };
}
