// The README's copy of decide's ladder, generated from LADDER: the order and the words of
// each rung are written once, in decide.ts, and the README cannot drift from them
// (scripts/check-generated.ts compares; scripts/generate-ladder-doc.ts rewrites).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lineDiff } from '../../api/crd/line-diff.js';
import { LADDER, type Rung } from './decide.js';

export const LADDER_DOC_PATH = 'README.md';
export const LADDER_BEGIN_MARKER =
  '<!-- BEGIN GENERATED DECIDE LADDER: `npx tsx scripts/generate-ladder-doc.ts` rewrites this part from LADDER in src/reconcilers/agentdeployment/decide.ts -->';
export const LADDER_END_MARKER = '<!-- END GENERATED DECIDE LADDER -->';

/** The generated region, markers included: one numbered line per rung, in ladder order. */
export function renderLadder(ladder: readonly Rung[] = LADDER): string {
  return [
    LADDER_BEGIN_MARKER,
    '',
    ...ladder.map((rung, index) => `${index + 1}. \`${rung.name}\`: ${rung.doc}`),
    '',
    LADDER_END_MARKER,
  ].join('\n');
}

/** `document` with its generated ladder replaced; throws when the markers are missing. */
export function withLadder(document: string, generated = renderLadder()): string {
  const begin = document.indexOf(LADDER_BEGIN_MARKER);
  const end = document.indexOf(LADDER_END_MARKER);
  if (begin < 0 || end < begin) {
    throw new Error(`${LADDER_DOC_PATH}: the markers of the generated decide ladder are missing`);
  }
  return document.slice(0, begin) + generated + document.slice(end + LADDER_END_MARKER.length);
}

/** A diff of the README's ladder against LADDER, or undefined when they agree. */
export async function ladderDocDrift(root: string): Promise<string | undefined> {
  const actual = await readFile(join(root, LADDER_DOC_PATH), 'utf8');
  const expected = withLadder(actual);
  return actual === expected ? undefined : lineDiff(expected, actual);
}

/** Rewrites the README's ladder from LADDER; returns whether the file changed. */
export async function writeLadderDoc(root: string): Promise<boolean> {
  const path = join(root, LADDER_DOC_PATH);
  const actual = await readFile(path, 'utf8');
  const expected = withLadder(actual);
  if (actual === expected) return false;
  await writeFile(path, expected);
  return true;
}
