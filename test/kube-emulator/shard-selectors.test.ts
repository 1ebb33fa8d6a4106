// What sharding asks of the API server: the selectors a shard watches with (`key=value`, the
// default shard's `!key`, and the set forms) on list and watch, through the real kubectl; and an
// object relabelled out of a watch's selection arriving as DELETED with the labels it had, as
// the real server's cacher sends it, so that the leaving shard sees it leave, not change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectWatch,
  http,
  installWidgetCrd,
  kubectl,
  startTestEmulator,
  widget,
  WIDGETS,
  type TestEmulator,
} from './helpers.js';

const SHARD = 'agentplatform.io/shard';
let env: TestEmulator;

beforeAll(async () => {
  env = await startTestEmulator({ bookmarkIntervalMs: 100 });
  await installWidgetCrd(env);
  for (const [name, shard] of [
    ['w-a', 'a'],
    ['w-b', 'b'],
    ['w-c', 'c'],
    ['w-none', undefined],
  ] as const) {
    const created = await http(
      env,
      'POST',
      WIDGETS,
      widget(name, 1, shard === undefined ? {} : { [SHARD]: shard }),
    );
    expect(created.status).toBe(201);
  }
});
afterAll(async () => {
  await env.stop();
});

async function namesSelected(selector: string): Promise<string[]> {
  const result = await kubectl(env, [
    'get',
    'widgets',
    '-l',
    selector,
    '-o',
    'jsonpath={.items[*].metadata.name}',
  ]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.split(/\s+/).filter(Boolean).sort();
}

describe('shard selectors on the kube emulator', () => {
  it('kubectl -l selects a shard by value, the default shard by the absent key, and by set', async () => {
    expect(await namesSelected(`${SHARD}=a`)).toEqual(['w-a']);
    expect(await namesSelected(`!${SHARD}`)).toEqual(['w-none']);
    expect(await namesSelected(`${SHARD} in (a,b)`)).toEqual(['w-a', 'w-b']);
    // notin also matches the objects without the key, as on a real cluster.
    expect(await namesSelected(`${SHARD} notin (a,b)`)).toEqual(['w-c', 'w-none']);
  });

  it('a malformed selector is a 400 naming the selector', async () => {
    const result = await kubectl(env, ['get', 'widgets', '-l', `${SHARD} in (a`]);
    expect(result.code).not.toBe(0);
  });

  it('an object relabelled out of a watch arrives as DELETED with its old labels, and ADDED in the other shard', async () => {
    const list = await http(env, 'GET', WIDGETS);
    const rv = (list.body['metadata'] as { resourceVersion: string }).resourceVersion;
    const watchFrom = (selector: string, until: (count: number) => boolean, onOpen?: () => Promise<void>) =>
      collectWatch(
        env,
        `${WIDGETS}?watch=true&resourceVersion=${rv}&labelSelector=${encodeURIComponent(selector)}`,
        (events) => until(events.filter((e) => e.type !== 'BOOKMARK').length),
        onOpen,
      );
    let moved: { metadata?: { resourceVersion?: string } } = {};
    const leaving = watchFrom(
      `${SHARD}=a`,
      (n) => n >= 1,
      async () => {
        const patched = await http(
          env,
          'PATCH',
          `${WIDGETS}/w-a`,
          { metadata: { labels: { [SHARD]: 'b' } } },
          'application/merge-patch+json',
        );
        moved = patched.body as typeof moved;
      },
    );
    const { events } = await leaving;
    const [left] = events.filter((e) => e.type !== 'BOOKMARK');
    expect(left?.type).toBe('DELETED');
    const leftMeta = left?.object.metadata as
      { labels?: Record<string, string>; resourceVersion?: string } | undefined;
    expect(leftMeta?.labels?.[SHARD]).toBe('a');
    expect(leftMeta?.resourceVersion).toBe(moved.metadata?.resourceVersion);

    const entering = await watchFrom(`${SHARD}=b`, (n) => n >= 1);
    const [entered] = entering.events.filter((e) => e.type !== 'BOOKMARK');
    expect(entered?.type).toBe('ADDED');
    expect((entered?.object.metadata as { labels?: Record<string, string> }).labels?.[SHARD]).toBe('b');
  });
});
