// The trace ids of a TraceDeletion's form 1: inline, or the values of one or more ConfigMap keys
// split on newlines and commas (blank entries ignored). A million ids do not fit one ConfigMap
// (1 MiB, ~27,000 uuids), so they come from a list of them, read in list order. Only one
// ConfigMap's text is held at a time: each is read, checked and counted, then dropped; sending
// reads them again one by one, and the batches of 1000 run across ConfigMap boundaries.
import { createHash } from 'node:crypto';
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
  return { ok: true, total };
}

export type IdSource =
  | { ok: true; ids: () => AsyncIterable<string> | Iterable<string>; total: number }
  | { ok: false; message: string };

export type ConfigMapValue = (name: string, key: string) => Promise<string | undefined>;

/**
 * A ConfigMap changed (or vanished) between counting its ids and sending them: the recorded
 * batch index would no longer point at the same ids, so the submission must not go on.
 */
export class IdSourceChanged extends Error {}

interface ConfigMapKey {
  name: string;
  key: string;
}

/** What counting saw of one ConfigMap key, to recognise the same text when it is read again. */
interface Counted extends ConfigMapKey {
  digest: string;
}

const describeKey = (ref: ConfigMapKey): string => `ConfigMap ${ref.name} key ${ref.key}`;
const digestOf = (text: string): string => createHash('sha256').update(text).digest('base64');

/** The ids to delete; `configMapValue` reads a key of a ConfigMap in the object's namespace. */
export async function traceIdsOf(spec: TraceDeletionSpec, configMapValue: ConfigMapValue): Promise<IdSource> {
  if (spec.traceIds !== undefined) {
    const ids = spec.traceIds;
    return { ok: true, ids: () => ids, total: ids.length };
  }
  const from = spec.traceIdsFrom;
  const refs = from?.configMapKeyRefs ?? (from?.configMapKeyRef === undefined ? [] : [from.configMapKeyRef]);
  if (refs.length === 0) return { ok: false, message: 'spec has neither traceIds nor traceIdsFrom' };
  const counted: Counted[] = [];
  let total = 0;
  for (const ref of refs) {
    const text = await configMapValue(ref.name, ref.key);
    if (text === undefined) return { ok: false, message: `${describeKey(ref)} not found` };
    const checked = checkIds(splitIds(text));
    if (!checked.ok) return { ok: false, message: `${describeKey(ref)}: ${checked.message}` };
    total += checked.total;
    counted.push({ name: ref.name, key: ref.key, digest: digestOf(text) });
  }
  if (total === 0) return { ok: false, message: 'traceIdsFrom: no trace ids given' };
  return { ok: true, ids: () => readAgain(counted, configMapValue), total };
}

async function* readAgain(
  counted: readonly Counted[],
  configMapValue: ConfigMapValue,
): AsyncGenerator<string> {
  for (const ref of counted) {
    const text = await configMapValue(ref.name, ref.key);
    if (text === undefined) throw new IdSourceChanged(`${describeKey(ref)} was removed while in use`);
    if (digestOf(text) !== ref.digest) {
      throw new IdSourceChanged(`${describeKey(ref)} changed while in use: create a new TraceDeletion`);
    }
    yield* splitIds(text);
  }
}
