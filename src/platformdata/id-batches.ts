// Ids come from a stream (a ConfigMap key read line by line, a generator): they are cut into
// batches of at most `size` as they arrive, so only one batch is ever held, whatever the total.

/** Yields consecutive batches of `size` ids (the last may be shorter), in order. */
export async function* batchesOf(
  ids: AsyncIterable<string> | Iterable<string>,
  size: number,
): AsyncGenerator<string[]> {
  if (!Number.isInteger(size) || size < 1)
    throw new Error(`batch size must be an integer >= 1 (got ${size})`);
  let batch: string[] = [];
  for await (const id of ids) {
    batch.push(id);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
