// The attacker suite for the emulators themselves (tenancy issue, items 7 and 8): both
// emulators run as real servers on loopback, and an attacker who can reach them sends
// malformed request targets to every route family and bodies nested thousands of levels
// deep to every write. Each must answer a 4xx (never a 5xx, never a dropped connection),
// store nothing, and leave the server serving: a valid request afterwards succeeds, and
// reads and cluster-wide lists of what is stored still answer 200.
import { request as httpRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlaneEmulator, type ControlPlaneEmulator } from '../../src/sim/controlplane/index.js';
import { startKubeEmulator, type KubeEmulator } from '../../src/sim/kube/index.js';
import { containerBody } from '../controlplane-emulator/helpers.js';
import { FIXTURES } from '../kube-emulator/helpers.js';

const API_KEY = 'emulator-key';
const DEEP = 5_000;

let controlPlane: ControlPlaneEmulator;
let kube: KubeEmulator;
/** The path of the deployed agent's runtime: /agents/<deployment id>. */
let agent: string;
let deploymentId: string;
let datasetId: string;

interface RawResponse {
  status: number;
  contentType: string | undefined;
  body: string;
}

/**
 * One request with the target sent byte for byte (fetch would normalise `..` and `//`).
 * A dropped connection rejects, which fails the test: every request must be answered.
 */
function send(
  baseUrl: string,
  method: string,
  target: string,
  options: { body?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const { hostname, port, pathname } = new URL(baseUrl);
  const prefix = pathname === '/' ? '' : pathname;
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        method,
        path: `${prefix}${target}`,
        agent: false,
        headers: {
          'content-length': String(body?.length ?? 0),
          ...(body === undefined ? {} : { 'content-type': options.contentType ?? 'application/json' }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (error) => reject(new Error(`${method} ${target}: connection failed: ${error.message}`)));
    req.end(body);
  });
}

/** Every credential a route could ask for, so that no refusal hides how the path is handled. */
function controlPlaneHeaders(): Record<string, string> {
  return {
    'x-api-key': API_KEY,
    'x-auth-scheme': 'platform-api-key',
    authorization: `Bearer ${controlPlane.adminToken}`,
  };
}

const cp = (method: string, target: string, body?: string): Promise<RawResponse> =>
  send(controlPlane.url, method, target, {
    headers: controlPlaneHeaders(),
    ...(body === undefined ? {} : { body }),
  });

const kubeCall = (
  method: string,
  target: string,
  body?: string,
  contentType?: string,
): Promise<RawResponse> =>
  send(kube.url, method, target, {
    ...(body === undefined ? {} : { body }),
    ...(contentType === undefined ? {} : { contentType }),
  });

beforeAll(async () => {
  controlPlane = await startControlPlaneEmulator({ revisionPhaseMs: 0, rateLimit: 'off' });
  kube = await startKubeEmulator();

  const listeners = JSON.parse((await cp('GET', '/v2/listeners')).body) as { resources: { id: string }[] };
  const listenerId = listeners.resources[0]?.id ?? '';
  const created = await cp('POST', '/v2/deployments', JSON.stringify(containerBody(listenerId)));
  expect(created.status).toBe(201);
  deploymentId = (JSON.parse(created.body) as { id: string }).id;
  agent = `/agents/${deploymentId}`;
  const dataset = await cp('POST', '/datasets', JSON.stringify({ name: 'robustness' }));
  expect(dataset.status).toBe(200);
  datasetId = (JSON.parse(dataset.body) as { id: string }).id;

  const crd = yaml.load(await readFile(join(FIXTURES, 'widget-crd.yaml'), 'utf8')) as {
    spec: {
      versions: { schema: { openAPIV3Schema: { properties: Record<string, { properties?: object }> } } }[];
    };
  };
  const properties = crd.spec.versions[0]?.schema.openAPIV3Schema.properties ?? {};
  properties['spec'] = {
    ...properties['spec'],
    properties: {
      ...properties['spec']?.properties,
      blob: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
  expect(
    (await kubeCall('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(crd)))
      .status,
  ).toBe(201);
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kept' }, stringData: { a: 'b' } };
  expect((await kubeCall('POST', '/api/v1/namespaces/default/secrets', JSON.stringify(secret))).status).toBe(
    201,
  );
  const widget = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'kept' },
    spec: { size: 1 },
  };
  expect(
    (await kubeCall('POST', '/apis/example.com/v1/namespaces/default/widgets', JSON.stringify(widget)))
      .status,
  ).toBe(201);
});

afterAll(async () => {
  await controlPlane.close();
  await kube.close();
});

/** The control plane, the platform data API and the agent runtime still answer valid requests. */
async function expectControlPlaneServing(): Promise<void> {
  expect((await cp('GET', '/v2/deployments')).status).toBe(200);
  expect((await cp('GET', `/v2/deployments/${deploymentId}`)).status).toBe(200);
  expect((await cp('GET', '/sessions')).status).toBe(200);
  expect((await cp('GET', `/datasets/${datasetId}`)).status).toBe(200);
  expect((await cp('GET', '/info')).status).toBe(200);
  expect((await cp('GET', `${agent}/ok`)).status).toBe(200);
  expect((await cp('POST', `${agent}/threads/search`, '{}')).status).toBe(200);
  expect((await cp('GET', '/_emulator/stats')).status).toBe(200);
}

/** The kube emulator still answers reads and cluster-wide lists of what is stored. */
async function expectKubeServing(): Promise<void> {
  for (const target of [
    '/api/v1/namespaces/default/secrets/kept',
    '/api/v1/secrets',
    '/apis/example.com/v1/namespaces/default/widgets/kept',
    '/apis/example.com/v1/widgets',
    '/apis',
    '/version',
  ]) {
    expect((await kubeCall('GET', target)).status, target).toBe(200);
  }
}

const MALFORMED_SEGMENTS: [string, string][] = [
  ['an escape that is not hex', '%ZZ'],
  ['a lone percent sign', '%'],
  ['a truncated UTF-8 sequence', '%E0%A4%A'],
  ['an overlong UTF-8 encoding of ".."', '%C0%AE%C0%AE'],
  ['an encoded lone surrogate', '%ED%A0%80'],
  ['an encoded NUL', '%00'],
  ['a NUL inside a name', 'a%00b'],
  ['a double slash', '/x'],
  ['a dot-dot segment', '..'],
  ['an encoded dot-dot segment', '%2e%2e'],
  ['a traversal', '../../../etc/passwd'],
  ['an encoded slash', 'a%2Fb'],
  ['a very long segment', 'a'.repeat(8_000)],
];

function controlPlaneRoutes(): [string, string][] {
  return [
    ['deployments', '/v2/deployments/{}'],
    ['revisions', `/v2/deployments/${deploymentId}/revisions/{}`],
    ['listeners', '/v2/listeners/{}'],
    ['integrations', '/v1/integrations/repo_host/install/{}'],
    ['platform runs', '/runs/{}'],
    ['platform runs under /api/v1', '/api/v1/runs/{}'],
    ['platform runs under /api/v2', '/api/v2/runs/{}'],
    ['platform sessions', '/sessions/{}'],
    ['platform datasets', '/datasets/{}/version'],
    ['platform examples', '/examples/{}'],
    ['platform dataset examples', '/v1/platform/datasets/{}/examples'],
    ['platform info', '/info/{}'],
    ['runtime deployment id', '/agents/{}/ok'],
    ['runtime threads', `${agent}/threads/{}`],
    ['runtime thread runs (SSE)', `${agent}/threads/{}/runs/stream`],
    ['runtime assistants', `${agent}/assistants/{}`],
    ['admin API', '/_emulator/tenants/{}/listeners'],
    ['admin API of the runtimes', '/_emulator/agent-{}'],
  ];
}

const KUBE_ROUTES: [string, string][] = [
  ['core objects', '/api/v1/namespaces/default/secrets/{}'],
  ['custom resources', '/apis/example.com/v1/namespaces/default/widgets/{}'],
  ['a status subresource', '/apis/example.com/v1/namespaces/default/widgets/{}/status'],
  ['group discovery', '/apis/{}'],
  ['version discovery', '/apis/example.com/{}'],
  ['legacy discovery', '/api/{}/namespaces'],
  ['OpenAPI', '/openapi/v3/apis/{}'],
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function expect4xx(response: RawResponse, label: string): void {
  expect(response.status, `${label}: ${response.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${label}: ${response.body.slice(0, 200)}`).toBeLessThan(500);
}

describe('malformed request targets', () => {
  it('every control-plane route family answers each with a 4xx, and the emulator keeps serving', async () => {
    for (const [family, route] of controlPlaneRoutes()) {
      for (const [what, segment] of MALFORMED_SEGMENTS) {
        for (const method of METHODS) {
          const target = route.replace('{}', segment);
          const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
          expect4xx(await cp(method, target, body), `${family}, ${what}: ${method} ${target.slice(0, 80)}`);
        }
      }
    }
    await expectControlPlaneServing();
  });

  it('every kube route family answers each with a 4xx, and the emulator keeps serving', async () => {
    for (const [family, route] of KUBE_ROUTES) {
      for (const [what, segment] of MALFORMED_SEGMENTS) {
        for (const method of METHODS) {
          const target = route.replace('{}', segment);
          const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
          const contentType = method === 'PATCH' ? 'application/merge-patch+json' : undefined;
          expect4xx(
            await kubeCall(method, target, body, contentType),
            `${family}, ${what}: ${method} ${target.slice(0, 80)}`,
          );
        }
      }
    }
    await expectKubeServing();
  });

  it('a target longer than the header limit is a 4xx on both', async () => {
    const long = `/v2/deployments/${'a'.repeat(20_000)}`;
    expect4xx(await cp('GET', long), 'control plane');
    expect4xx(await kubeCall('GET', `/api/v1/namespaces/default/secrets/${'a'.repeat(20_000)}`), 'kube');
    await expectControlPlaneServing();
    await expectKubeServing();
  });

  it('malformed query strings never get a 5xx', async () => {
    const query = '?limit=%ZZ&offset=%&name_contains=%E0%A4%A&watch=%00&labelSelector=%ED%A0%80';
    for (const target of ['/v2/deployments', '/sessions', '/examples', `${agent}/ok`, '/_emulator/stats']) {
      expect((await cp('GET', `${target}${query}`)).status, target).toBeLessThan(500);
    }
    for (const target of ['/api/v1/secrets', '/apis/example.com/v1/namespaces/default/widgets']) {
      expect((await kubeCall('GET', `${target}${query}`)).status, target).toBeLessThan(500);
    }
    await expectControlPlaneServing();
    await expectKubeServing();
  });
});

function nested(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

describe(`bodies nested ${DEEP} levels deep`, () => {
  const deep = nested(DEEP);
  const SECRETS = '/api/v1/namespaces/default/secrets';
  const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
  const secret = (name: string, extra: string): string =>
    `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${name}"},${extra}}`;
  const widget = (name: string, spec: string, extra = ''): string =>
    `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":${spec}${extra}}`;
  const MERGE = 'application/merge-patch+json';
  const STRATEGIC = 'application/strategic-merge-patch+json';
  const JSON_PATCH = 'application/json-patch+json';
  const APPLY = 'application/apply-patch+yaml';

  it('to every kube write of a Secret and a custom resource: 400, nothing stored, reads and lists still 200', async () => {
    const writes: [string, string, string, string?][] = [
      ['POST', SECRETS, secret('deep', `"bogus":${deep}`)],
      ['POST', SECRETS, secret('deep', `"data":{"k":${deep}}`)],
      ['PUT', `${SECRETS}/kept`, secret('kept', `"bogus":${deep}`)],
      ['PUT', `${SECRETS}/kept`, secret('kept', `"data":{"k":${deep}}`)],
      ['PATCH', `${SECRETS}/kept`, `{"bogus":${deep}}`, MERGE],
      ['PATCH', `${SECRETS}/kept`, `{"data":{"k":${deep}}}`, STRATEGIC],
      ['PATCH', `${SECRETS}/kept`, `[{"op":"add","path":"/bogus","value":${deep}}]`, JSON_PATCH],
      ['PATCH', `${SECRETS}/kept?fieldManager=attacker`, secret('kept', `"data":{"k":${deep}}`), APPLY],
      ['PATCH', `${SECRETS}/deep?fieldManager=attacker`, secret('deep', `"bogus":${deep}`), APPLY],
      ['POST', WIDGETS, widget('deep', '{"size":1}', `,"bogus":${deep}`)],
      ['POST', WIDGETS, widget('deep', `{"size":1,"blob":{"x":${deep}}}`)],
      ['PUT', `${WIDGETS}/kept`, widget('kept', `{"size":1,"blob":{"x":${deep}}}`)],
      ['PATCH', `${WIDGETS}/kept`, `{"spec":{"blob":{"x":${deep}}}}`, MERGE],
      ['PATCH', `${WIDGETS}/kept`, `[{"op":"add","path":"/spec/blob","value":${deep}}]`, JSON_PATCH],
      ['PATCH', `${WIDGETS}/kept?fieldManager=attacker`, widget('kept', `{"size":1,"bogus":${deep}}`), APPLY],
      ['PUT', `${WIDGETS}/kept/status`, widget('kept', '{"size":1}', `,"status":{"conditions":${deep}}`)],
      ['PATCH', `${WIDGETS}/kept/status`, `{"status":{"conditions":${deep}}}`, MERGE],
    ];
    const before = [
      (await kubeCall('GET', '/api/v1/secrets')).body,
      (await kubeCall('GET', '/apis/example.com/v1/widgets')).body,
    ];
    for (const [method, target, body, contentType] of writes) {
      const response = await kubeCall(method, target, body, contentType);
      const label = `${method} ${target} ${contentType ?? ''}`;
      expect(response.status, `${label}: ${response.body.slice(0, 200)}`).toBe(400);
      expect(JSON.parse(response.body), label).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        code: 400,
      });
      await expectKubeServing();
    }
    expect((await kubeCall('GET', `${SECRETS}/deep`)).status).toBe(404);
    expect((await kubeCall('GET', `${WIDGETS}/deep`)).status).toBe(404);
    const after = [
      (await kubeCall('GET', '/api/v1/secrets')).body,
      (await kubeCall('GET', '/apis/example.com/v1/widgets')).body,
    ];
    expect(after).toEqual(before);
  });

  it('to control-plane, platform and runtime writes: a 4xx, and everything still serves', async () => {
    const listeners = JSON.parse((await cp('GET', '/v2/listeners')).body) as { resources: { id: string }[] };
    const create = JSON.stringify(containerBody(listeners.resources[0]?.id ?? '', { name: 'deep' })).replace(
      /^\{/,
      `{"bogus":${deep},`,
    );
    const volume = `{"source_config":{"resource_spec":{"volumes":[{"name":"v","configMap":{"x":${deep}}}]}}}`;
    const runId = crypto.randomUUID();
    const writes: [string, string, string][] = [
      ['POST', '/v2/deployments', create],
      ['PATCH', `/v2/deployments/${deploymentId}`, volume],
      ['POST', '/_emulator/faults', `{"status":503,"route":${deep}}`],
      [
        'POST',
        '/runs',
        `{"id":"${runId}","name":"x","run_type":"chain","start_time":"2030-01-01T00:00:00Z","inputs":{"q":${deep}}}`,
      ],
      [
        'POST',
        '/runs/batch',
        `{"post":[{"id":"${runId}","name":"x","run_type":"chain","inputs":{"q":${deep}}}]}`,
      ],
      ['PATCH', `/runs/${runId}`, `{"outputs":{"a":${deep}}}`],
      ['POST', '/runs/query', `{"filter":"${'and('.repeat(DEEP)}eq(name, \\"x\\")${')'.repeat(DEEP)}"}`],
      ['POST', '/sessions', `{"name":"deep","extra":{"x":${deep}}}`],
      ['POST', '/datasets', `{"name":"deep","extra":{"x":${deep}}}`],
      ['POST', '/examples', `{"dataset_id":"${datasetId}","inputs":{"x":${deep}}}`],
      ['POST', '/api/v1/examples/bulk', `[{"dataset_id":"${datasetId}","inputs":{"x":${deep}}}]`],
      ['POST', `${agent}/threads`, `{"metadata":{"x":${deep}}}`],
      ['POST', `${agent}/threads/search`, `{"metadata":{"x":${deep}}}`],
      ['POST', `${agent}/runs/wait`, `{"assistant_id":"agent","metadata":{"x":${deep}}}`],
      ['POST', `${agent}/runs/stream`, `{"assistant_id":"agent","input":{"messages":${deep}}}`],
      ['POST', '/_emulator/agent-faults', `{"status":503,"route":${deep}}`],
    ];
    for (const [method, target, body] of writes) {
      const response = await cp(method, target, body);
      expect4xx(response, `${method} ${target}`);
      expect(response.contentType ?? '', `${method} ${target}`).not.toContain('text/event-stream');
      await expectControlPlaneServing();
    }
    expect((await cp('GET', `/runs/${runId}`)).status).toBe(404);
    const names = (JSON.parse((await cp('GET', '/v2/deployments')).body) as { resources: { name: string }[] })
      .resources;
    expect(names.map((d) => d.name)).not.toContain('deep');
  });
});
