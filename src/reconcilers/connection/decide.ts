// The pure core of the connection reconciler: observed state in, one action out. Its ladder:
// deleting (hold while used here or in another live shard, else release) → finalizer → credential → probe when due (never
// probed by this process, spec or key changed, or the slow timer ran out) → wait.
import type { ConnectionAction } from './action.js';
import type { ConnectionObserved } from './observed.js';

export function decideConnection(o: ConnectionObserved): ConnectionAction {
  if (o.deleting) {
    if (o.users.length > 0 || o.otherShards.length > 0) {
      return { kind: 'holdForUsers', users: o.users, otherShards: o.otherShards };
    }
    return o.hasFinalizer ? { kind: 'releaseFinalizer' } : { kind: 'done' };
  }
  if (!o.hasFinalizer) return { kind: 'addFinalizer' };
  if (!o.credential.ok) return { kind: 'credentialMissing', message: o.credential.message };
  const memory = o.memory;
  if (
    memory === undefined ||
    memory.generation !== o.generation ||
    memory.credentialVersion !== o.credential.version ||
    o.now >= memory.nextAt
  ) {
    return { kind: 'probe' };
  }
  return { kind: 'wait', ms: memory.nextAt - o.now };
}
