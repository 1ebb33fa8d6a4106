// The server bench/kube-transport/main.ts measures against: it reads each request's body and
// answers every one with the same AgentDeployment-sized JSON object (about 1.7 KB, a status
// PATCH's answer), keeping connections alive; a GET with `watch=1` is answered with `count`
// MODIFIED events of that object, `pace` a second one per write (as a server applying writes
// one by one sends them), or all in one write with `pace=0`, then the stream ends. It prints
// its port on stdout.
import http from 'node:http';

const ANSWER = JSON.stringify({
  apiVersion: 'agents.example.io/v1',
  kind: 'AgentDeployment',
  metadata: {
    name: 'bench-object',
    namespace: 'bench',
    resourceVersion: '123456',
    uid: '0f8fad5b-d9cb-469f-a165-70867728950e',
    annotations: { 'bench.example.io/note': 'n'.repeat(200) },
    managedFields: [
      { manager: 'agent-operator', operation: 'Update', fieldsV1: { 'f:status': 'f'.repeat(400) } },
    ],
  },
  spec: { image: 'i'.repeat(100), env: [{ name: 'SETTING', value: 'v'.repeat(200) }] },
  status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Deployed', message: 'm'.repeat(300) }] },
});

async function streamEvents(response: http.ServerResponse, count: number, pace: number): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/json' });
  const event = (i: number): string =>
    `{"type":"MODIFIED","object":${ANSWER.replace('"123456"', `"${200_000 + i}"`)}}\n`;
  if (pace === 0) {
    response.end(Array.from({ length: count }, (_, i) => event(i)).join(''));
    return;
  }
  const started = performance.now();
  let written = 0;
  while (written < count) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * pace));
    for (; written < due; written += 1) response.write(event(written));
  }
  response.end();
}

const server = http.createServer((request, response) => {
  const query = new URL(request.url ?? '/', 'http://bench').searchParams;
  if (request.method === 'GET' && query.get('watch') === '1') {
    void streamEvents(response, Number(query.get('count') ?? '0'), Number(query.get('pace') ?? '0'));
    return;
  }
  request.resume();
  request.on('end', () => {
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(ANSWER),
    });
    response.end(ANSWER);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
