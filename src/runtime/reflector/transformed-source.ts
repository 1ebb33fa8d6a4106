// A list/watch source whose objects are changed as they arrive, before the cache or any
// handler sees them (client-go's SetTransform, controller-runtime's cache transforms): the
// cache keeps only what the operator reads, and nothing else is ever allocated twice.
import type { KubeObject, WatchEvent } from '../kube/objects.js';
import type { ListWatchSource } from './list-watch.js';

export function transformedSource<In extends KubeObject, Out extends KubeObject>(
  source: ListWatchSource<In>,
  transform: (object: In) => Out,
  description = source.description,
): ListWatchSource<Out> {
  return {
    description,
    list: async (request) => {
      const page = await source.list(request);
      return { ...page, items: page.items.map(transform) };
    },
    watch: async (request) => {
      const events = await source.watch(request);
      return (async function* (): AsyncIterable<WatchEvent<Out>> {
        for await (const event of events) {
          yield event.type === 'ERROR' ? event : { type: event.type, object: transform(event.object) };
        }
      })();
    },
  };
}
