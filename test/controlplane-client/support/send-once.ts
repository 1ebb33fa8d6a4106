// Child-process probe: sends one GET through the client's HttpTransport to the URL given as
// argument, with the process's own environment (proxy variables, NODE_EXTRA_CA_CERTS, which
// Node reads only at start-up), and prints what happened as one JSON line.
import { systemClock } from '../../../src/controlplane/budget/clock.js';
import { HttpTransport } from '../../../src/controlplane/client/http-transport.js';

const target = new URL(process.argv[2] ?? '');
const transport = new HttpTransport(target.origin, systemClock);
const result = await transport.send({
  method: 'GET',
  path: target.pathname,
  headers: {},
  deadlineMs: 10_000,
});
await transport.close();
process.stdout.write(
  `${JSON.stringify(result.type === 'response' ? { status: result.status } : { failure: result.code })}\n`,
);
