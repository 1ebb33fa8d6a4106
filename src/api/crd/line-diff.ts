// A small line diff for drift messages: enough to show a reviewer what changed in a
// generated file, without a dependency. LCS over lines; the generated files are a few
// thousand lines at most, so the quadratic table stays small.

/** `-`/`+` lines with up to `context` unchanged lines around each change, at most `maxLines` lines. */
export function lineDiff(expected: string, actual: string, context = 2, maxLines = 60): string {
  const a = actual.split('\n');
  const b = expected.split('\n');
  // Trim the common head and tail first: drift is usually a few lines in a long file.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const aMid = a.slice(head, a.length - tail);
  const bMid = b.slice(head, b.length - tail);

  const rows = aMid.length + 1;
  const cols = bMid.length + 1;
  const lcs = new Uint32Array(rows * cols);
  for (let i = aMid.length - 1; i >= 0; i--) {
    for (let j = bMid.length - 1; j >= 0; j--) {
      lcs[i * cols + j] =
        aMid[i] === bMid[j]
          ? (lcs[(i + 1) * cols + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * cols + j] ?? 0, lcs[i * cols + j + 1] ?? 0);
    }
  }
  const ops: string[] = [];
  let i = 0;
  let j = 0;
  while (i < aMid.length || j < bMid.length) {
    if (i < aMid.length && j < bMid.length && aMid[i] === bMid[j]) {
      ops.push(`  ${aMid[i] ?? ''}`);
      i++;
      j++;
    } else if (
      i < aMid.length &&
      (j >= bMid.length || (lcs[(i + 1) * cols + j] ?? 0) >= (lcs[i * cols + j + 1] ?? 0))
    ) {
      // Removals before additions, as diff(1) shows them.
      ops.push(`- ${aMid[i] ?? ''}`);
      i++;
    } else {
      ops.push(`+ ${bMid[j] ?? ''}`);
      j++;
    }
  }
  const before = a.slice(Math.max(0, head - context), head).map((line) => `  ${line}`);
  const after = a.slice(a.length - tail, a.length - tail + context).map((line) => `  ${line}`);
  const lines = [`@@ line ${head + 1 - before.length} @@`, ...before, ...ops, ...after];
  return lines.length > maxLines
    ? [...lines.slice(0, maxLines), `... (${lines.length - maxLines} more lines)`].join('\n')
    : lines.join('\n');
}
