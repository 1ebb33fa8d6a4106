import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/runtime/kube/json-lines.js';

function collect(chunks: Array<Buffer | string>): string[] {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  for (const chunk of chunks) splitter.push(chunk, (line) => lines.push(line));
  splitter.end((line) => lines.push(line));
  return lines;
}

describe('LineSplitter (the watch stream splitter)', () => {
  it('yields every line of one chunk, and a last line without a newline', () => {
    expect(collect([Buffer.from('{"a":1}\n{"b":2}\n{"c":3}')])).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('joins a line split across several chunks', () => {
    expect(
      collect([Buffer.from('{"a":'), Buffer.from('12'), Buffer.from('3}\n{"b"'), Buffer.from(':4}\n')]),
    ).toEqual(['{"a":123}', '{"b":4}']);
  });

  it('decodes a multi-byte character split between two chunks exactly', () => {
    const bytes = Buffer.from('{"name":"caf\u00e9 \u6f22\u5b57 \u{1f680}"}\n', 'utf8');
    const chunks = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
    expect(collect(chunks)).toEqual(['{"name":"caf\u00e9 \u6f22\u5b57 \u{1f680}"}']);
  });

  it('keeps empty lines and carriage returns for the caller to skip or parse', () => {
    expect(collect(['{"a":1}\r\n', '\n', '{"b":2}\n'])).toEqual(['{"a":1}\r', '', '{"b":2}']);
  });

  it('yields nothing for an empty stream', () => {
    expect(collect([])).toEqual([]);
  });
});
