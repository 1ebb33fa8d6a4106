// Keys ordered by the time they are due: a binary min-heap, as client-go's delaying queue keeps
// its waiting keys. The queue's scheduled-later keys were a map scanned in full on every timer:
// with a thousand keys polled every 2 s, that was half a million entries a second.
//
// Entries are never removed from the middle: a key rescheduled earlier is pushed again, and the
// owner drops the stale entry when it comes out (see WorkQueue.releaseReady).

export interface DueEntry {
  at: number;
  key: string;
}

export class DueHeap {
  private readonly entries: DueEntry[] = [];

  get size(): number {
    return this.entries.length;
  }

  push(entry: DueEntry): void {
    const entries = this.entries;
    entries.push(entry);
    let index = entries.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = entries[parent] as DueEntry;
      if (above.at <= entry.at) break;
      entries[index] = above;
      index = parent;
    }
    entries[index] = entry;
  }

  peek(): DueEntry | undefined {
    return this.entries[0];
  }

  pop(): DueEntry | undefined {
    const entries = this.entries;
    const top = entries[0];
    const last = entries.pop();
    if (top === undefined || last === undefined || entries.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= entries.length) break;
      const right = left + 1;
      const leftEntry = entries[left] as DueEntry;
      const rightEntry = entries[right];
      const child = rightEntry !== undefined && rightEntry.at < leftEntry.at ? right : left;
      const childEntry = entries[child] as DueEntry;
      if (last.at <= childEntry.at) break;
      entries[index] = childEntry;
      index = child;
    }
    entries[index] = last;
    return top;
  }

  clear(): void {
    this.entries.length = 0;
  }
}
