// The platform API's /ok on a free loopback port: what a PlatformConnection's probe asks for
// before it calls the connection Reachable, for benchmarks that run connections without a
// platform data emulator.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startOkServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    response.statusCode = request.url === '/ok' ? 200 : 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
