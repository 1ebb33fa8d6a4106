// The agent runtime keeps thread and run metadata as given, so a body nested deeper than
// MAX_JSON_DEPTH was stored and every later read of the thread answered 500. It is now the
// runtime's 400 for a malformed body, before anything is created or any stream opens. And a
// run that fails inside the emulator (no request waiting on it, as for a background run) is
// logged and ends as an error instead of becoming an unhandled rejection, which ends the process.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunExecution } from '../../src/sim/agents/runs.js';
import { MAX_JSON_DEPTH } from '../../src/sim/http/json-nesting.js';
import { AUTH_HEADERS, agentUrlOf, startRuntimeFixture, userInput, type RuntimeFixture } from './helpers.js';
import { captureLog } from '../support/log-capture.js';

const DEEP = 5_000;
const TOO_DEEP = `Request body nested deeper than ${MAX_JSON_DEPTH} levels`;

const log = captureLog('control-plane-emulator');

let fixture: RuntimeFixture;
let agent: string;

beforeAll(async () => {
  fixture = await startRuntimeFixture({
    logger: log.logger,
  });
  agent = agentUrlOf(await fixture.deploy());
});
afterEach(() => {
  vi.restoreAllMocks();
  log.clear();
});

function nested(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

async function post(
  path: string,
  body: string,
  headers: Record<string, string> = AUTH_HEADERS,
): Promise<Response> {
  return fetch(`${agent}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body,
  });
}

async function threadCount(): Promise<number> {
  const response = await post('/threads/search', '{"limit":1000}');
  expect(response.status).toBe(200);
  return ((await response.json()) as unknown[]).length;
}

describe(`a body nested ${DEEP} levels deep`, () => {
  const threadId = crypto.randomUUID();
  const deepRun = `{"assistant_id":"agent","metadata":{"x":${nested(DEEP)}},"input":{"messages":[{"role":"user","content":"hi"}]}}`;

  it.each([
    ['a thread', '/threads', `{"thread_id":"${threadId}","metadata":{"x":${nested(DEEP)}}}`],
    ['a background run', '/runs', deepRun],
    ['a waited run', '/runs/wait', deepRun],
    ['a streamed run', '/runs/stream', deepRun],
    [
      'a run on a new thread',
      `/threads/${threadId}/runs/stream`,
      deepRun.replace('{', '{"if_not_exists":"create",'),
    ],
    ['a thread search', '/threads/search', `{"metadata":{"x":${nested(DEEP)}}}`],
  ])('creating %s: 400 before anything is created or streamed', async (_what, path, body) => {
    const before = await threadCount();
    const response = await post(path, body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).not.toContain('text/event-stream');
    expect(await response.text()).toBe(TOO_DEEP);
    expect(await threadCount()).toBe(before);
    expect((await fetch(`${agent}/threads/${threadId}`, { headers: AUTH_HEADERS })).status).toBe(404);
  });

  it('to the runtimes’ admin API: 400 too', async () => {
    const response = await fetch(`${fixture.emulator.url}/_emulator/agent-faults`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fixture.emulator.emulator.adminToken}`,
        'content-type': 'application/json',
      },
      body: `{"status":503,"route":${nested(DEEP)}}`,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toBe(TOO_DEEP);
  });
});

describe('a run that fails inside the emulator', () => {
  it('with no request waiting on it: logged, and the runtime goes on', async () => {
    const setStatus = vi
      .spyOn(RunExecution.prototype as unknown as { setStatus(status: string): void }, 'setStatus')
      .mockImplementationOnce(() => {
        throw new Error('run broke');
      });
    const response = await post('/runs', JSON.stringify({ assistant_id: 'agent', input: userInput('hi') }));
    expect(response.status).toBe(200);
    await expect.poll(() => setStatus.mock.calls.length).toBeGreaterThan(0);
    await expect.poll(() => log.text()).toContain('run broke');
    const waited = await post(
      '/runs/wait',
      JSON.stringify({ assistant_id: 'agent', input: userInput('again') }),
    );
    expect(waited.status).toBe(200);
  });
});
