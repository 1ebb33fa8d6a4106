// Run inputs, session and dataset extras and example inputs keep whatever JSON they get, so a
// body nested deeper than MAX_JSON_DEPTH was stored and every later read of it answered 500.
// Every way JSON reaches the platform data API (a JSON body, a part of a multipart body, the
// `metadata` query parameter) now refuses it with the service's 422 json_invalid, and a filter
// expression nested as deep is a 400 like any invalid filter; nothing is stored either way.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/sim/http/json-nesting.js';
import { KEY, startPlatform } from './helpers.js';

const api = await startPlatform();
const DEEP = 5_000;

function nested(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

interface Detail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

function expectNestingRefusal(
  response: { status: number; body: unknown },
  loc: (string | number)[],
  label: string,
): void {
  expect(response.status, label).toBe(422);
  const [detail] = (response.body as { detail: Detail[] }).detail;
  expect(detail?.type, label).toBe('json_invalid');
  expect(detail?.msg, label).toBe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  expect(detail?.loc.slice(0, loc.length), label).toEqual(loc);
}

async function multipart(
  path: string,
  parts: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  const boundary = 'deep-bodies-boundary';
  const body =
    Object.entries(parts)
      .map(
        ([name, json]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json\r\n\r\n${json}\r\n`,
      )
      .join('') + `--${boundary}--\r\n`;
  const response = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const run = (id: string, inputs: string): string =>
  `{"id":"${id}","trace_id":"${id}","name":"deep","run_type":"chain","start_time":"${new Date().toISOString()}","session_name":"deep","inputs":{"q":${inputs}}}`;

describe(`JSON nested ${DEEP} levels deep`, () => {
  it('in a run, a batch or a multipart part: 422 and no run stored', async () => {
    const id = crypto.randomUUID();
    expectNestingRefusal(
      await api.call('POST', '/runs', { rawBody: run(id, nested(DEEP)) }),
      ['body'],
      'one run',
    );
    expectNestingRefusal(
      await api.call('POST', '/runs/batch', { rawBody: `{"post":[${run(id, nested(DEEP))}]}` }),
      ['body'],
      'batch',
    );
    expectNestingRefusal(
      await multipart('/runs/multipart', {
        [`post.${id}`]: run(id, '1'),
        [`post.${id}.inputs`]: `{"q":${nested(DEEP)}}`,
      }),
      ['body', `post.${id}.inputs`],
      'multipart',
    );
    expect((await api.call('GET', `/runs/${id}`)).status).toBe(404);
  });

  it('in a session, a dataset or examples: 422 and nothing created', async () => {
    expectNestingRefusal(
      await api.call('POST', '/sessions', {
        rawBody: `{"name":"deep-session","extra":{"x":${nested(DEEP)}}}`,
      }),
      ['body'],
      'session',
    );
    const sessions = await api.call<{ name: string }[]>('GET', '/sessions?name=deep-session');
    expect(sessions).toMatchObject({ status: 200, body: [] });

    expectNestingRefusal(
      await api.call('POST', '/datasets', {
        rawBody: `{"name":"deep-dataset","extra":{"x":${nested(DEEP)}}}`,
      }),
      ['body'],
      'dataset',
    );
    const dataset = await api.call<{ id: string }>('POST', '/datasets', {
      body: { name: 'examples-target' },
    });
    expect(dataset.status).toBe(200);
    const datasetId = dataset.body.id;
    const example = `{"dataset_id":"${datasetId}","inputs":{"x":${nested(DEEP)}}}`;
    expectNestingRefusal(await api.call('POST', '/examples', { rawBody: example }), ['body'], 'example');
    expectNestingRefusal(
      await api.call('POST', '/examples/bulk', { rawBody: `[${example}]` }),
      ['body'],
      'bulk',
    );
    const exampleId = crypto.randomUUID();
    expectNestingRefusal(
      await multipart(`/v1/platform/datasets/${datasetId}/examples`, {
        [exampleId]: '{}',
        [`${exampleId}.inputs`]: `{"x":${nested(DEEP)}}`,
      }),
      ['body', `${exampleId}.inputs`],
      'example upload',
    );
    const examples = await api.call<unknown[]>('GET', `/examples?dataset=${datasetId}`);
    expect(examples).toMatchObject({ status: 200, body: [] });
  });

  it('in the metadata query parameter of an example search: 422 at the parameter', async () => {
    // A query string is bounded by the header size limit, so the nesting is just past the limit.
    const metadata = encodeURIComponent(`{"x":${nested(MAX_JSON_DEPTH)}}`);
    expectNestingRefusal(
      await api.call('GET', `/examples?as_of=latest&metadata=${metadata}`),
      ['query', 'metadata'],
      'metadata query',
    );
  });
});

describe('a filter nested deeper than the limit', () => {
  it.each([
    ['calls', `${'and('.repeat(DEEP)}eq(name, "x")${')'.repeat(DEEP)}`],
    ['lists', `in(name, ${nested(DEEP)})`],
  ])('of %s is a 400 Invalid filter, and queries go on', async (_kind, filter) => {
    const response = await api.call<{ detail: string }>('POST', '/runs/query', { body: { filter } });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe(`Invalid filter: nested deeper than ${MAX_JSON_DEPTH} levels`);
    const fine = await api.call('POST', '/runs/query', {
      body: { filter: 'and(eq(name, "x"), eq(run_type, "chain"))' },
    });
    expect(fine.status).toBe(200);
  });
});
