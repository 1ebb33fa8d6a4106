// Issue 16, item 2, as an attacker would try it: a proxy in front of the control plane
// answers 400 and quotes the whole request body in its detail, secret values included (a
// value with a quote and a backslash, a 3-character value, a PEM private key). Nothing of
// them may reach the object's status, its events, the operator's logs (debug level too) or
// its metrics, in any encoding; the condition still says what failed (status and rule).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Stack, condition, containerAgent } from './harness.js';

const QUOTED = 'p"q\\r-echo';
const SHORT = 'Zq9';
const PEM =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n';

/** Every form in which an echo could carry the value. */
function forms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const all = [
    value,
    once,
    JSON.stringify(once).slice(1, -1),
    encodeURIComponent(value),
    Buffer.from(value).toString('base64'),
  ];
  // A PEM key's body lines, each on its own (an echo may re-wrap them).
  if (value.includes('\n'))
    all.push(...value.split('\n').filter((line) => line.length > 30 && !line.startsWith('-')));
  return all;
}

let stack: Stack;

beforeEach(async () => {
  stack = await Stack.start();
});
afterEach(async () => {
  await stack.close();
});

describe('a proxy that echoes the request body in a 400 detail', () => {
  it('reaches no status, event, log line or metric; the condition names the status', async () => {
    const listenerId = await stack.listenerId();
    await stack.putSecret('echo-secrets', { quoted: QUOTED, short: SHORT, pem: PEM });
    await stack.admin('POST', '/faults', {
      method: 'POST',
      route: '/v2/deployments',
      status: 400,
      echoBody: true,
    });
    const ref = (key: string) => ({ secretKeyRef: { name: 'echo-secrets', key } });
    await stack.apply(
      containerAgent('echoed', listenerId, {
        // A small body, so that the whole echo fits in what a client keeps of a detail.
        sourceConfig: { listenerId },
        secrets: [
          { name: 'SHORT', valueFrom: ref('short') },
          { name: 'QUOTED', valueFrom: ref('quoted') },
          { name: 'PEM', valueFrom: ref('pem') },
        ],
      }),
    );
    const rejected = await stack.waitFor(
      'echoed',
      (o) => condition(o, 'Stalled')?.status === 'True',
      'Stalled after the rejection',
    );
    await stack.eventsWithReason('echoed', 'Rejected');
    const stalled = condition(rejected, 'Stalled');
    expect(stalled?.message).toMatch(/HTTP 400/);

    const status = JSON.stringify(rejected.status);
    const events = JSON.stringify(await stack.events());
    const logs = stack.logLines.join('\n');
    const metrics = (await stack.operators[0]?.registry.metrics()) ?? '';
    expect(stack.logLines.some((line) => line.includes('"level":20'))).toBe(true);
    for (const value of [QUOTED, SHORT, PEM]) {
      for (const form of forms(value)) {
        expect(status, `status holds ${JSON.stringify(form)}`).not.toContain(form);
        expect(events, `events hold ${JSON.stringify(form)}`).not.toContain(form);
        expect(logs, `logs hold ${JSON.stringify(form)}`).not.toContain(form);
        expect(metrics, `metrics hold ${JSON.stringify(form)}`).not.toContain(form);
      }
    }
  });
});
