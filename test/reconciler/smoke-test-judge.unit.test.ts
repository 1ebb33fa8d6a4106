// Whether an agent's answer passes spec.smokeTest.expect, how status quotes it, and the
// SmokeTestPassed condition status derives from a verdict.
import { describe, expect, it } from 'vitest';
import {
  judgeAnswer,
  quote,
  readJsonPath,
  smokeTestSpecHash,
} from '../../src/reconcilers/agentdeployment/smoke-test.js';
import { nextStatus } from '../../src/reconcilers/agentdeployment/status.js';

const answer = {
  messages: [
    { type: 'human', content: 'ping' },
    { type: 'ai', content: 'echo: ping (revision registry.example/bot:2)' },
  ],
  count: 2,
};

describe('judgeAnswer', () => {
  it('passes any answer without expect, and quotes the last AI message', () => {
    expect(judgeAnswer(answer, undefined)).toEqual({
      passed: true,
      reply: 'echo: ping (revision registry.example/bot:2)',
    });
  });

  it('contains: the last AI message must contain the text, else the reply is quoted', () => {
    expect(judgeAnswer(answer, { contains: 'bot:2' }).passed).toBe(true);
    expect(judgeAnswer(answer, { contains: 'pong' })).toEqual({
      passed: false,
      reason: 'the reply does not contain "pong": "echo: ping (revision registry.example/bot:2)"',
    });
  });

  it('jsonPath + equals: negative indexes count from the end; non-strings compare as JSON', () => {
    expect(judgeAnswer(answer, { jsonPath: '$.messages[-1].type', equals: 'ai' }).passed).toBe(true);
    expect(judgeAnswer(answer, { jsonPath: '$.count', equals: '2' }).passed).toBe(true);
    expect(judgeAnswer(answer, { jsonPath: '$.messages[5].content', equals: 'x' })).toEqual({
      passed: false,
      reason: '$.messages[5].content is not "x": nothing there',
    });
  });

  it('redacts the key before cutting the quote, so no prefix of it survives the cut', () => {
    const key = 'sk-live-0123456789abcdef';
    const values = { messages: [{ type: 'ai', content: `${'a'.repeat(190)}${key}` }] };
    const redact = (text: string) => text.split(key).join('[redacted]');
    const failed = judgeAnswer(values, { contains: 'pong' }, redact);
    expect(failed.passed).toBe(false);
    expect(JSON.stringify(failed)).not.toContain(key.slice(0, 6));
    expect(JSON.stringify(judgeAnswer(values, undefined, redact))).not.toContain(key.slice(0, 6));
  });

  it('readJsonPath refuses to index what is not an array or read a field of what is not an object', () => {
    expect(readJsonPath(answer, '$.count.x')).toEqual({ kind: 'missing' });
    expect(readJsonPath(answer, '$.count[0]')).toEqual({ kind: 'missing' });
    expect(readJsonPath(answer, '$.messages[-2].content')).toEqual({ kind: 'value', value: 'ping' });
  });
});

describe('quote and the spec digest', () => {
  it('cuts a long reply to one line of at most 200 characters', () => {
    const quoted = quote(`${'a'.repeat(500)}\n\nb`);
    expect(JSON.parse(quoted)).toHaveLength(200);
    expect(quoted).not.toContain('\\n');
  });

  it('the digest ignores key order and changes with any value', () => {
    const a = { input: { messages: [{ role: 'user' as const, content: 'ping' }] }, timeoutSeconds: 20 };
    const b = { timeoutSeconds: 20, input: { messages: [{ content: 'ping', role: 'user' as const }] } };
    expect(smokeTestSpecHash(a)).toBe(smokeTestSpecHash(b));
    expect(smokeTestSpecHash({ ...a, timeoutSeconds: 21 })).not.toBe(smokeTestSpecHash(a));
  });
});

describe('the SmokeTestPassed condition in status', () => {
  const object = { metadata: { name: 'bot', namespace: 'a', generation: 3 }, spec: {} };
  const now = new Date('2026-11-23T12:00:00Z');
  const verdict = {
    revisionId: 'r2',
    specHash: 'h',
    result: 'Passed' as const,
    message: 'the agent answered "ping"',
  };

  it('a verdict sets the condition (with the generation and the revision it tested), status.smokeTest and status.url', () => {
    const status = nextStatus(
      object,
      { kind: 'Deployed', message: 'ok' },
      { smokeTest: { kind: 'verdict', verdict }, agentUrl: 'http://x/agents/1' },
      now,
    );
    expect(status.conditions?.find((c) => c.type === 'SmokeTestPassed')).toMatchObject({
      status: 'True',
      reason: 'SmokeTestPassed',
      message: 'Revision r2: the agent answered "ping"',
      observedGeneration: 3,
    });
    expect(status.smokeTest).toEqual(verdict);
    expect(status.url).toBe('http://x/agents/1');
  });

  it('a failed verdict is False with reason SmokeTestFailed; pending is Unknown; none removes both', () => {
    const failed = nextStatus(
      object,
      { kind: 'SmokeTestFailed', message: 'no' },
      { smokeTest: { kind: 'verdict', verdict: { ...verdict, result: 'Failed' } } },
      now,
    );
    expect(failed.conditions?.find((c) => c.type === 'SmokeTestPassed')).toMatchObject({
      status: 'False',
      reason: 'SmokeTestFailed',
    });
    expect(failed.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'SmokeTestFailed',
    });
    expect(failed.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'False' });
    const pending = nextStatus(
      { ...object, status: failed },
      { kind: 'SmokeTestPending', message: 'calling' },
      { smokeTest: { kind: 'pending', message: 'calling' } },
      now,
    );
    expect(pending.conditions?.find((c) => c.type === 'SmokeTestPassed')).toMatchObject({
      status: 'Unknown',
      reason: 'SmokeTestPending',
    });
    const none = nextStatus(
      { ...object, status: failed },
      { kind: 'Deployed', message: 'ok' },
      { smokeTest: { kind: 'none' } },
      now,
    );
    expect(none.conditions?.map((c) => c.type)).toEqual(['Ready', 'Reconciling', 'Stalled']);
    expect(none.smokeTest).toBeUndefined();
  });
});
