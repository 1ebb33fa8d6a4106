// A full garbage collection that gives back fragmented old-space pages, for the heap settle.
//
// A plain full collection (Node's `gc`) moves the survivors off a page only when the page is
// mostly empty (V8 picks pages about 70% free as evacuation candidates). After a burst the old
// space holds pages a third to a half free, and those stay committed: measured at 10,000
// settled objects, 126 MB committed for 84 MB used, unchanged by repeated collections.
//
// V8 12 and later (Node 22, the image's Node) take a "last resort" flavour in `gc`'s options:
// the collections V8 runs before it gives up on memory, which evacuate every fragmented page
// and return the freed pages to the system. Without it V8 12 keeps freed pages in a pool
// until its memory reducer runs, and that waits for an idle process, which an operator
// resyncing thousands of objects never is: measured on Node 22 at 10,000 settled objects, the
// process held 361-371 MB resident for 106 MB of heap (212 MB once the settle released it).
//
// V8 11 (Node 20) has no such flavour. When V8 favours memory (`--optimize-for-size`) it
// evacuates pages 20% free, a few megabytes per collection, and Node 20 unmaps them at once.
// That flag also makes every other collection and the compilers favour memory, at a CPU cost
// to the whole process, so it is turned on for the settle's own collections only: the
// collector reads it while it runs, and the collection is synchronous, so no JavaScript runs
// while it is on. Node keeps V8's flags writable after start-up (it does not freeze them),
// which is what `setFlagsFromString` relies on; a process started with the flag keeps it.
import { setFlagsFromString } from 'node:v8';

const FAVOUR_MEMORY = '--optimize-for-size';

/** The major version of the V8 this process runs. */
export const RUNNING_V8_MAJOR = Number(process.versions.v8.split('.')[0]);

/** Node's `gc` under --expose-gc, with the options V8 12 reads. */
export type ExposedGc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface CompactingCollectionOptions {
  gc: ExposedGc;
  /** V8's major version (default: the running one). */
  v8Major?: number;
  /** The process was started favouring memory: the flag is left alone. */
  alreadyFavoursMemory?: boolean;
  setFlags?: (flags: string) => void;
}

/** Whether the process was started favouring memory already (then the flag is left alone). */
export function favoursMemoryAlready(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return given.some((flag) => flag === FAVOUR_MEMORY || flag === '--optimize_for_size');
}

/** One compacting full collection, the way this V8 offers it. */
export function compactingCollection({
  gc,
  v8Major = RUNNING_V8_MAJOR,
  alreadyFavoursMemory = favoursMemoryAlready(process.execArgv, process.env.NODE_OPTIONS),
  setFlags = setFlagsFromString,
}: CompactingCollectionOptions): () => void {
  if (v8Major >= 12) return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  if (alreadyFavoursMemory) return () => gc();
  return () => {
    setFlags(FAVOUR_MEMORY);
    try {
      gc();
    } finally {
      setFlags(`--no-${FAVOUR_MEMORY.slice(2)}`);
    }
  };
}
