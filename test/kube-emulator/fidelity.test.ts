// Rough edges a user meets through kubectl, which the emulator must answer as a real API
// server does: CEL rules are not run over an object that already failed its schema (a
// missing required field), and events written through events.k8s.io/v1 carry the core/v1
// timestamps and count that `kubectl get events --sort-by` and `describe` read; and idle
// connections live as long as kube-apiserver lets them.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestEmulator, type TestEmulator } from './helpers.js';

let env: TestEmulator;

beforeAll(async () => {
  env = await startTestEmulator();
});
afterAll(async () => {
  await env.stop();
});

const RANGE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'ranges.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'ranges', singular: 'range', kind: 'Range' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['min', 'max'],
                properties: { min: { type: 'integer' }, max: { type: 'integer' } },
                'x-kubernetes-validations': [
                  { rule: 'self.min <= self.max', message: 'min must not exceed max' },
                ],
              },
            },
          },
        },
      },
    ],
  },
};

describe('CEL rules after a schema error', () => {
  beforeAll(async () => {
    const applied = await kubectl(env, ['apply', '-f', '-'], JSON.stringify(RANGE_CRD));
    expect(applied.code, applied.stderr).toBe(0);
    const ready = await kubectl(env, [
      'wait',
      '--for=condition=Established',
      'crd/ranges.example.com',
      '--timeout=10s',
    ]);
    expect(ready.code, ready.stderr).toBe(0);
  });

  const range = (spec: Record<string, unknown>) =>
    JSON.stringify({
      apiVersion: 'example.com/v1',
      kind: 'Range',
      metadata: { name: 'r', namespace: 'default' },
      spec,
    });

  it('a missing required field skips the rules and says some were not checked, without "no such key"', async () => {
    const result = await kubectl(env, ['apply', '-f', '-'], range({ min: 1 }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('spec.max: Required value');
    expect(result.stderr).toContain(
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    );
    expect(result.stderr).not.toContain('no such key');
    expect(result.stderr).not.toContain('min must not exceed max');
  });

  it('a complete object still has its rules checked', async () => {
    const result = await kubectl(env, ['apply', '-f', '-'], range({ min: 3, max: 1 }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('spec: Invalid value: "object": min must not exceed max');
    expect(result.stderr).not.toContain('were not checked');
  });
});

describe('events written through events.k8s.io/v1, read as core/v1', () => {
  const EVENTS_V1 = '/apis/events.k8s.io/v1/namespaces/default/events';

  async function record(
    name: string,
    reason: string,
    eventTime: string,
    series?: { count: number; lastObservedTime: string },
  ) {
    const created = await http(env, 'POST', EVENTS_V1, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace: 'default' },
      eventTime,
      ...(series ? { series } : {}),
      reportingController: 'example.com/controller',
      reportingInstance: 'controller-0',
      action: 'Reconcile',
      reason,
      type: 'Normal',
      note: `${reason} happened`,
      regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'subject', namespace: 'default' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }

  beforeAll(async () => {
    // Written out of order: the second-created one happened first.
    await record('late', 'Late', '2026-03-01T10:00:05.000000Z', {
      count: 3,
      lastObservedTime: '2026-03-01T10:00:30.500000Z',
    });
    await record('early', 'Early', '2026-03-01T10:00:00.250000Z');
  });

  it('fill firstTimestamp, lastTimestamp and count from eventTime and series', async () => {
    const early = await http(env, 'GET', '/api/v1/namespaces/default/events/early');
    expect(early.body).toMatchObject({
      firstTimestamp: '2026-03-01T10:00:00Z',
      lastTimestamp: '2026-03-01T10:00:00Z',
      count: 1,
    });
    const late = await http(env, 'GET', '/api/v1/namespaces/default/events/late');
    expect(late.body).toMatchObject({
      firstTimestamp: '2026-03-01T10:00:05Z',
      lastTimestamp: '2026-03-01T10:00:30Z',
      count: 3,
      series: { count: 3, lastObservedTime: '2026-03-01T10:00:30.500000Z' },
    });
    // The events.k8s.io view stays as written.
    const v1 = await http(env, 'GET', `${EVENTS_V1}/late`);
    expect(v1.body['deprecatedLastTimestamp']).toBeUndefined();
  });

  it('kubectl get events --sort-by=.lastTimestamp orders them as they happened', async () => {
    const result = await kubectl(env, [
      'get',
      'events',
      '-n',
      'default',
      '--sort-by=.lastTimestamp',
      '-o',
      'custom-columns=REASON:.reason,LAST:.lastTimestamp,COUNT:.count',
      '--no-headers',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    expect(rows).toEqual([
      ['Early', '2026-03-01T10:00:00Z', '1'],
      ['Late', '2026-03-01T10:00:30Z', '3'],
    ]);
  });
});

describe('kept-alive connections', () => {
  // kube-apiserver closes a connection after 90 s idle (Go's IdleTimeout, matching Go's
  // transport). Node's default is 5 s: a client reusing a connection idle for about that long
  // raced the server's close, and a write sent on it failed with ECONNRESET.
  it('are kept idle as long as kube-apiserver keeps them, and the answer says so', async () => {
    const { hostname, port } = new URL(env.emulator.url);
    const keepAlive = await new Promise<string | string[] | undefined>((resolve, reject) => {
      const agent = new Agent({ keepAlive: true });
      const req = request({ host: hostname, port, path: '/version', agent }, (res) => {
        res.resume();
        res.on('end', () => {
          agent.destroy();
          resolve(res.headers['keep-alive']);
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(keepAlive).toBe('timeout=90');
  });
});
