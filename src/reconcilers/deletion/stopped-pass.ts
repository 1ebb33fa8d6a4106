// A submission whose pass was stopped ends quietly: its object left this operator's cache
// (deleted, or relabelled to another shard, which now owns it), or the operator lost its lease
// or is stopping. The batches sent stay recorded; the batch cut off was not refused by the
// platform, so it is no SubmitFailed (a Warning on an object that may be gone, or another
// shard's), and nothing is written: the next owner's pass resumes from the record.

/** Why the pass with `signal` was stopped; undefined while it runs. */
export function stoppedPassReason(signal: AbortSignal): string | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : 'the pass was stopped';
}
