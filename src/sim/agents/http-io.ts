// Response writing with the real runtime server's conventions: CORS headers on everything,
// plain-text errors, and JSON pretty-printed with two spaces (as its serializer does).
import type { ServerResponse } from 'node:http';

export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'content-location,x-pagination-total',
};

export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function writeBody(
  res: ServerResponse,
  status: number,
  contentType: string,
  payload: string,
  headers: Record<string, string>,
): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    ...headers,
    'content-type': contentType,
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  writeBody(res, status, 'application/json', toJson(body), headers);
}

export function writeText(res: ServerResponse, status: number, text: string): void {
  writeBody(res, status, 'text/plain;charset=UTF-8', text, {});
}
