// Server-sent events as the real runtime server writes them: `event:`, then the payload
// pretty-printed with one `data:` line per line of JSON, then `id:` on thread streams, then
// a blank line. Each event is written when it is produced.
import type { ServerResponse } from 'node:http';
import { COMMON_HEADERS, toJson } from './http-io.js';

export class SseWriter {
  private nextId = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly numbered: boolean,
  ) {}

  open(contentLocation: string): void {
    this.res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'content-location': contentLocation,
    });
  }

  event = (name: string, data: unknown): void => {
    if (this.res.writableEnded || this.res.destroyed) return;
    let frame = `event: ${name}\n`;
    for (const line of toJson(data).split('\n')) frame += `data: ${line}\n`;
    if (this.numbered) frame += `id: ${this.nextId++}\n`;
    this.res.write(`${frame}\n`);
  };

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}
