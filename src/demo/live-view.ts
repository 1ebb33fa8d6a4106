// Shows the demo's progress. On a terminal: a table redrawn in place with a spinner. Not on
// a terminal (CI logs): one plain line per change, no escape codes.
import type { DemoRow } from './rows.js';
import { rowSignature } from './rows.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface DemoView {
  phase(title: string): void;
  rows(rows: DemoRow[], elapsedMs: number): void;
  line(text: string): void;
  close(): void;
}

export function createView(
  output: NodeJS.WriteStream | NodeJS.WritableStream,
  interactive: boolean,
): DemoView {
  return interactive ? new TerminalView(output) : new PlainView(output);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function table(rows: DemoRow[]): string[] {
  const header = ['NAME', 'CONNECTION', 'SOURCE', 'REVISION', 'ACTIVE', 'READY', 'REASON'];
  const cells = rows.map((r) => [
    r.name,
    r.connection,
    r.source,
    r.revisionStatus,
    r.activeRevision,
    r.ready,
    r.reason,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const format = (values: string[]) => values.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ');
  return [format(header), ...cells.map(format)];
}

class PlainView implements DemoView {
  private readonly seen = new Map<string, string>();
  constructor(private readonly output: NodeJS.WritableStream) {}

  phase(title: string): void {
    this.output.write(`\n== ${title}\n`);
  }

  rows(rows: DemoRow[], elapsedMs: number): void {
    for (const row of rows) {
      const signature = rowSignature(row);
      if (this.seen.get(row.name) === signature) continue;
      this.seen.set(row.name, signature);
      this.output.write(
        `[${seconds(elapsedMs).padStart(6)}] ${row.name}: revision ${row.revisionStatus}, active ${row.activeRevision}, Ready=${row.ready} (${row.reason}), connection ${row.connection}${row.stalled ? `: ${row.message}` : ''}\n`,
      );
    }
  }

  line(text: string): void {
    this.output.write(`${text}\n`);
  }

  close(): void {}
}

class TerminalView implements DemoView {
  private drawn = 0;
  private frame = 0;
  constructor(private readonly output: NodeJS.WritableStream) {}

  phase(title: string): void {
    this.drawn = 0;
    this.output.write(`\n\x1b[1m${title}\x1b[0m\n`);
  }

  rows(rows: DemoRow[], elapsedMs: number): void {
    const pending = rows.some((row) => !row.settled);
    const spinner = pending ? SPINNER[this.frame++ % SPINNER.length] : '✔';
    const lines = [
      ...table(rows).map((line, index) => (index === 0 ? `\x1b[2m${line}\x1b[0m` : line)),
      `${spinner} ${pending ? 'reconciling' : 'all Ready'} · ${seconds(elapsedMs)}`,
    ];
    const stalled = rows.filter((row) => row.stalled).map((row) => `  ${row.name}: ${row.message}`);
    lines.push(...stalled);
    let text = this.drawn > 0 ? `\x1b[${this.drawn}A` : '';
    for (const line of lines) text += `\x1b[2K${line}\n`;
    this.output.write(text);
    this.drawn = lines.length;
  }

  line(text: string): void {
    this.drawn = 0;
    this.output.write(`${text}\n`);
  }

  close(): void {}
}
