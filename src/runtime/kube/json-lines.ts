// The lines of a watch stream (one JSON event per line), split on the newline byte of the raw
// chunks. node:readline did this before at a cost of about a tenth of what an event costs the
// operator: it decodes every chunk to a string, then searches and slices the string again, and
// keeps history and terminal state nobody here reads. A newline byte (0x0a) never occurs inside
// a multi-byte UTF-8 character, so decoding each whole line's bytes once is exact even when a
// character is split across chunks. It is called from the stream's 'data' handler (see
// watch-lines.ts), so it hands lines to a callback rather than yielding them.
const NEWLINE = 0x0a;

export class LineSplitter {
  /** The bytes of a line that began in an earlier chunk and has not ended yet. */
  private pending: Buffer[] = [];

  /** Calls `onLine` with every line that `received` completes, in order. */
  push(received: Buffer | string, onLine: (line: string) => void): void {
    const chunk = typeof received === 'string' ? Buffer.from(received, 'utf8') : received;
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const tail = chunk.subarray(start, end);
      const line =
        this.pending.length === 0
          ? tail.toString('utf8')
          : Buffer.concat([...this.pending, tail]).toString('utf8');
      this.pending = [];
      start = end + 1;
      onLine(line);
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  /** The stream ended: a last line without a newline (a server that closed right after it). */
  end(onLine: (line: string) => void): void {
    if (this.pending.length === 0) return;
    const line = Buffer.concat(this.pending).toString('utf8');
    this.pending = [];
    onLine(line);
  }
}
