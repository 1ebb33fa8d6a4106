// The attacker's host in the attacker suite: an HTTP server on loopback that records every
// request (method, path, headers, body) and answers like an agent, echoing the key it was
// sent in several encodings, so that a leak through the smoke test's quoted reply shows too.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface CaptureServer {
  url: string;
  /** `127.0.0.1:<port>`, as an allow-list entry names it. */
  hostPort: string;
  requests: CapturedRequest[];
  /** Everything it received, headers and bodies, as one text to search for a key. */
  seen(): string;
  close(): Promise<void>;
}

export async function startCaptureServer(): Promise<CaptureServer> {
  const requests: CapturedRequest[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
      });
      const key = String(request.headers['x-api-key'] ?? '');
      const echo = [
        `got ${key}`,
        `hex ${Buffer.from(key).toString('hex')}`,
        `b64 ${Buffer.from(key).toString('base64')}`,
        `hdr ${Buffer.from(`x-api-key: ${key}`).toString('base64')}`,
      ].join(' ');
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ messages: [{ type: 'ai', content: echo }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    requests,
    seen: () => requests.map((r) => `${JSON.stringify(r.headers)} ${r.path} ${r.body}`).join('\n'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every form a key may travel or be quoted in: as is, JSON-escaped, URL-encoded, base64 (any alignment), hex. */
export function keyForms(key: string): string[] {
  const bytes = Buffer.from(key);
  const forms = [
    key,
    JSON.stringify(key).slice(1, -1),
    encodeURIComponent(key),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ];
  // base64 at each byte alignment, minus the groups shared with what surrounds it.
  for (const lead of [0, 1, 2]) {
    const aligned = bytes.subarray(lead);
    const whole = aligned.subarray(0, aligned.length - (aligned.length % 3));
    forms.push(whole.toString('base64'), whole.toString('base64url'));
  }
  return forms.filter((form) => form.length >= 8);
}
