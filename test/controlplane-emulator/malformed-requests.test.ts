// One address serves the control plane, the platform data API and the agent runtimes. A path
// whose percent escapes do not decode is the client's error on every one of them (400), and
// an error no handler expected is a 500 without detail that goes to the emulator's log; in
// neither case does the process go down.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../src/sim/http/http-error.js';
import { Router } from '../../src/sim/http/router.js';
import { EmulatorStore } from '../../src/sim/controlplane/store.js';
import { PlatformDataApi } from '../../src/sim/platform/platform-api.js';
import { SseWriter } from '../../src/sim/agents/sse.js';
import {
  AUTH_HEADERS,
  agentUrlOf,
  startRuntimeFixture,
  type RuntimeFixture,
} from '../runtime-emulator/helpers.js';
import { KEY } from './helpers.js';
import { captureLog } from '../support/log-capture.js';

const BAD_ESCAPES = ['%ZZ', '%', '%E0%A4%A', '%C0%AE', '%ED%A0%80'];
const SOME_UUID = '00000000-0000-4000-8000-000000000000';

const log = captureLog('control-plane-emulator');

let fixture: RuntimeFixture;
let agentPath: string;

beforeAll(async () => {
  fixture = await startRuntimeFixture({
    logger: log.logger,
  });
  const deployment = await fixture.deploy();
  agentPath = new URL(agentUrlOf(deployment)).pathname;
});

afterEach(() => {
  vi.restoreAllMocks();
  log.clear();
});

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fixture.emulator.url}${path}`, { headers: { 'x-api-key': KEY, ...headers } });
}

describe('a path whose percent escapes do not decode', () => {
  const routes = (): string[] => [
    '/v2/deployments/{}',
    `/v2/deployments/${SOME_UUID}/revisions/{}`,
    '/v2/listeners/{}',
    '/runs/{}',
    '/sessions/{}',
    '/datasets/{}',
    '/examples/{}',
    '/api/v1/runs/{}',
    '/api/v2/runs/{}',
    '/info/{}',
    '/agents/{}/ok',
    `${agentPath}/threads/{}`,
    `${agentPath}/assistants/{}`,
    '/_emulator/tenants/{}/listeners',
    '/_emulator/agent-calls/{}',
  ];

  it('answers 400 on every route family, and the emulator keeps serving', async () => {
    for (const route of routes()) {
      for (const escape of BAD_ESCAPES) {
        const path = route.replace('{}', escape);
        const response = await get(path, AUTH_HEADERS);
        expect(response.status, path).toBe(400);
        expect(await response.json(), path).toEqual({
          detail: 'Malformed percent-encoding in the request path',
        });
      }
    }
    expect((await get('/v2/deployments')).status).toBe(200);
    expect((await get('/sessions')).status).toBe(200);
    expect((await get(`${agentPath}/ok`, AUTH_HEADERS)).status).toBe(200);
  });
});

describe('the shared route table', () => {
  it('turns an undecodable parameter into a 400 HttpError, never a URIError', () => {
    const router = new Router<string>().add('GET', '/things/{thing_id}', 'handler');
    expect(() => router.match('GET', '/things/%ZZ')).toThrow(HttpError);
    let caught: unknown;
    try {
      router.match('GET', '/things/%E0%A4%A');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      status: 400,
      body: { detail: 'Malformed percent-encoding in the request path' },
    });
    expect(router.match('GET', '/things/a%20b')).toMatchObject({
      kind: 'found',
      params: { thing_id: 'a b' },
    });
  });
});

describe('an error no handler expected', () => {
  it('in the platform routing: 500 without detail, logged, and the next request is served', async () => {
    vi.spyOn(PlatformDataApi.prototype, 'owns').mockImplementationOnce(() => {
      throw new Error('routing broke on secret-7f1');
    });
    const response = await get('/sessions');
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ detail: 'Internal emulator error' });
    expect(text).not.toContain('secret-7f1');
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        msg: 'control-plane emulator: unexpected error',
        method: 'GET',
        path: '/sessions',
      }),
    );
    expect((await get('/sessions')).status).toBe(200);
  });

  it('in a control-plane handler: 500, counted in the stats, logged', async () => {
    vi.spyOn(EmulatorStore.prototype, 'sweep').mockImplementationOnce(() => {
      throw new RangeError('store broke');
    });
    const response = await get('/v2/deployments');
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ detail: 'Internal emulator error' });
    expect(log.text()).toContain('store broke');
    expect((await get('/v2/deployments')).status).toBe(200);
  });

  it('in a runtime stream after its headers went out: the stream is cut, logged, and the runtime answers again', async () => {
    vi.spyOn(SseWriter.prototype, 'end').mockImplementationOnce(() => {
      throw new Error('stream broke');
    });
    const response = await fetch(`${fixture.emulator.url}${agentPath}/runs/stream`, {
      method: 'POST',
      headers: { ...AUTH_HEADERS, 'content-type': 'application/json' },
      // The agent sleeps a little, so the headers and the first event reach the client first.
      body: JSON.stringify({
        assistant_id: 'agent',
        input: { messages: [{ role: 'user', content: 'sleep:50' }] },
      }),
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    await expect.poll(() => log.text()).toContain('stream broke');
    expect((await get(`${agentPath}/ok`, AUTH_HEADERS)).status).toBe(200);
  });
});
