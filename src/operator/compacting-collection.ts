// A full garbage collection that gives back fragmented old-space pages, for the heap settle.
//
// A plain full collection (Node's `gc`) moves the survivors off a page only when the page is
// mostly empty (V8 picks pages about 70% free as evacuation candidates). After a burst the old
// space holds pages a third to a half free, and those stay committed: measured at 10,000
// settled objects, 126 MB committed for 84 MB used, unchanged by repeated collections. When
// V8 favours memory (`--optimize-for-size`) it evacuates pages 20% free, a few megabytes per
// collection. That flag also makes every other collection and the compilers favour memory, at
// a CPU cost to the whole process, so it is turned on only for the settle's own collections:
// the collector reads it while it runs, and the collection is synchronous, so no JavaScript
// runs while it is on. Node keeps V8's flags writable after start-up (it does not freeze them),
// which is what `setFlagsFromString` relies on; a process started with the flag keeps it.
import { setFlagsFromString } from 'node:v8';

const FAVOUR_MEMORY = '--optimize-for-size';

/** Whether the process was started favouring memory already (then the flag is left alone). */
export function favoursMemoryAlready(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return given.some((flag) => flag === FAVOUR_MEMORY || flag === '--optimize_for_size');
}

/** `gc` run with V8 favouring memory for that one collection. */
export function compactingCollection(
  gc: () => void,
  alreadyFavoursMemory = favoursMemoryAlready(process.execArgv, process.env.NODE_OPTIONS),
): () => void {
  if (alreadyFavoursMemory) return gc;
  return () => {
    setFlagsFromString(FAVOUR_MEMORY);
    try {
      gc();
    } finally {
      setFlagsFromString(`--no-${FAVOUR_MEMORY.slice(2)}`);
    }
  };
}
