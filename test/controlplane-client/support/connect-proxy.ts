// A forward proxy on loopback that only tunnels (HTTP CONNECT), as corporate egress proxies
// do for https, and records each tunnel's target so tests can count what went through it.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export interface ConnectProxy {
  url: string;
  /** host:port of every tunnel opened, in order. */
  tunnels: string[];
  close(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const server: Server = createServer((_request, response) => response.writeHead(405).end());
  server.on('connect', (request, clientSocket, head) => {
    tunnels.push(request.url ?? '');
    const [host = '', port = ''] = (request.url ?? '').split(/:(?=\d+$)/);
    const upstream = connect(Number(port), host, () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    upstream.on('error', () => clientSocket.destroy());
    clientSocket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
