import { describe, expect, it } from 'vitest';
import { linesOf } from '../../src/runtime/kube/json-lines.js';

async function collect(chunks: Array<Buffer | string>): Promise<string[]> {
  async function* source(): AsyncGenerator<Buffer | string> {
    for (const chunk of chunks) yield chunk;
  }
  const lines: string[] = [];
  for await (const line of linesOf(source())) lines.push(line);
  return lines;
}

describe('linesOf (the watch stream splitter)', () => {
  it('yields every line of one chunk, and a last line without a newline', async () => {
    expect(await collect([Buffer.from('{"a":1}\n{"b":2}\n{"c":3}')])).toEqual([
      '{"a":1}',
      '{"b":2}',
      '{"c":3}',
    ]);
  });

  it('joins a line split across several chunks', async () => {
    expect(
      await collect([Buffer.from('{"a":'), Buffer.from('12'), Buffer.from('3}\n{"b"'), Buffer.from(':4}\n')]),
    ).toEqual(['{"a":123}', '{"b":4}']);
  });

  it('decodes a multi-byte character split between two chunks exactly', async () => {
    const bytes = Buffer.from('{"name":"caf\u00e9 \u6f22\u5b57 \u{1f680}"}\n', 'utf8');
    const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    expect(await collect(chunks)).toEqual(['{"name":"caf\u00e9 \u6f22\u5b57 \u{1f680}"}']);
  });

  it('keeps empty lines and carriage returns for the caller to skip or parse', async () => {
    expect(await collect(['{"a":1}\r\n', '\n', '{"b":2}\n'])).toEqual(['{"a":1}\r', '', '{"b":2}']);
  });

  it('yields nothing for an empty stream', async () => {
    expect(await collect([])).toEqual([]);
  });
});
