// The id source of a TraceDeletion over several ConfigMaps, with a ConfigMap reader in memory:
// list order, one ConfigMap read at a time while sending, and a ConfigMap that changes between
// counting and sending stops the stream rather than shifting the recorded batch index.
import { describe, expect, it } from 'vitest';
import { IdSourceChanged, traceIdsOf } from '../../src/reconcilers/tracedeletion/trace-ids.js';
import { randomIds } from './stack.js';

const SESSION = '00000000-0000-4000-8000-000000000000';

function reader(maps: Map<string, string>, reads: string[]) {
  return (name: string, key: string): Promise<string | undefined> => {
    reads.push(name);
    return Promise.resolve(maps.get(`${name}/${key}`));
  };
}

const specOf = (names: string[]) => ({
  sessionId: SESSION,
  traceIdsFrom: { configMapKeyRefs: names.map((name) => ({ name, key: 'ids' })) },
});

describe('trace ids from several ConfigMaps', () => {
  it('counts every ConfigMap, then streams them in list order, reading the next only when needed', async () => {
    const [a, b] = [randomIds(3), randomIds(2)];
    const maps = new Map([
      ['ids-a/ids', a.join('\n')],
      ['ids-b/ids', b.join(',')],
    ]);
    const reads: string[] = [];
    const source = await traceIdsOf(specOf(['ids-a', 'ids-b']), reader(maps, reads));
    expect(source).toMatchObject({ ok: true, total: 5 });
    if (!source.ok) return;
    expect(reads).toEqual(['ids-a', 'ids-b']);
    const seen: string[] = [];
    for await (const id of source.ids()) {
      seen.push(id);
      // While the first ConfigMap's ids are read, the second has not been fetched again.
      if (seen.length === a.length) expect(reads).toEqual(['ids-a', 'ids-b', 'ids-a']);
    }
    expect(seen).toEqual([...a, ...b]);
    expect(reads).toEqual(['ids-a', 'ids-b', 'ids-a', 'ids-b']);
  });

  it('stops with the ConfigMap named when it changed between counting and sending', async () => {
    const maps = new Map([
      ['ids-a/ids', randomIds(2).join('\n')],
      ['ids-b/ids', randomIds(2).join('\n')],
    ]);
    const source = await traceIdsOf(specOf(['ids-a', 'ids-b']), reader(maps, []));
    if (!source.ok) throw new Error(source.message);
    maps.set('ids-b/ids', randomIds(3).join('\n'));
    const seen: string[] = [];
    const drain = async () => {
      for await (const id of source.ids()) seen.push(id);
    };
    await expect(drain()).rejects.toThrow(IdSourceChanged);
    await expect(drain()).rejects.toThrow('ConfigMap ids-b key ids changed while in use');
    expect(seen).toHaveLength(4);
  });

  it('names the ConfigMap and the position of an id that is not a uuid, and a ConfigMap that is missing', async () => {
    const bad = randomIds(12);
    bad[11] = 'nope';
    const maps = new Map([
      ['ids-006/ids', randomIds(2).join('\n')],
      ['ids-007/ids', bad.join('\n')],
    ]);
    expect(await traceIdsOf(specOf(['ids-006', 'ids-007']), reader(maps, []))).toEqual({
      ok: false,
      message: 'ConfigMap ids-007 key ids: trace id 12 is not a uuid',
    });
    expect(await traceIdsOf(specOf(['ids-006', 'ids-008']), reader(maps, []))).toEqual({
      ok: false,
      message: 'ConfigMap ids-008 key ids not found',
    });
  });
});
