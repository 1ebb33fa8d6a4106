// The trace ids of a TraceDeletion's form 1: inline, or a ConfigMap key's value split on
// newlines and commas (blank entries ignored), streamed so that only a batch is held at a time.
import type { TraceDeletionSpec } from '../../api/deletion/index.js';

export function* splitIds(text: string): Generator<string> {
  for (const piece of text.split(/[\n,]/)) {
    const id = piece.trim();
    if (id !== '') yield id;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How many ids there are, or which one is not a uuid (the platform would refuse its batch). */
function checkIds(ids: Iterable<string>): { ok: true; total: number } | { ok: false; message: string } {
  let total = 0;
  for (const id of ids) {
    if (!UUID.test(id)) return { ok: false, message: `trace id ${total + 1} is not a uuid` };
    total += 1;
  }
  return total === 0 ? { ok: false, message: 'no trace ids given' } : { ok: true, total };
}

export type IdSource =
  { ok: true; ids: () => Iterable<string>; total: number } | { ok: false; message: string };

/** The ids to delete; `configMapValue` reads a key of a ConfigMap in the object's namespace. */
export async function traceIdsOf(
  spec: TraceDeletionSpec,
  configMapValue: (name: string, key: string) => Promise<string | undefined>,
): Promise<IdSource> {
  if (spec.traceIds !== undefined) {
    const ids = spec.traceIds;
    return { ok: true, ids: () => ids, total: ids.length };
  }
  const ref = spec.traceIdsFrom?.configMapKeyRef;
  if (ref === undefined) return { ok: false, message: 'spec has neither traceIds nor traceIdsFrom' };
  const text = await configMapValue(ref.name, ref.key);
  if (text === undefined) return { ok: false, message: `ConfigMap ${ref.name} key ${ref.key} not found` };
  const checked = checkIds(splitIds(text));
  if (!checked.ok) return { ok: false, message: `ConfigMap ${ref.name} key ${ref.key}: ${checked.message}` };
  return { ok: true, ids: () => splitIds(text), total: checked.total };
}
