// The server bench/kube-transport/main.ts measures against: it reads each request's body and
// answers every one with the same AgentDeployment-sized JSON object (about 1.7 KB, a status
// PATCH's answer), keeping connections alive. It prints its port on stdout.
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

const server = http.createServer((request, response) => {
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
