// The logger's second line of defence: a secret field inside any logged text (an echoed
// request body, JSON-escaped or not) is replaced whatever the value's length, at every level.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';

function capture(): { lines: string[]; destination: Writable } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, destination };
}

describe('logger redaction', () => {
  it('replaces secret fields in logged text, escaped or not, at debug level too', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'debug', destination });
    const echoed = JSON.stringify({
      secrets: [
        { name: 'A', value: 'Zq9' },
        { name: 'B', value: 'p"q\\r' },
      ],
    });
    logger.debug(
      { detail: `Bad request: ${echoed}`, nested: { deeper: [JSON.stringify({ detail: echoed })] } },
      'x',
    );
    logger.info({ err: new Error('boom') }, 'an error keeps its message');
    const text = lines.join('');
    expect(text).not.toContain('Zq9');
    expect(text).not.toMatch(/p\\+"q/);
    expect(text).toContain('[REDACTED]');
    expect(text).toContain('boom');
  });
});
