// decide's ladder is data (LADDER), and the README's copy is generated from it: these tests
// pin what makes that copy trustworthy. The order itself is pinned by the rows of
// decide.test.ts, which also require every rung to decide at least one row.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LADDER } from '../../src/reconcilers/agentdeployment/decide.js';
import {
  LADDER_BEGIN_MARKER,
  LADDER_END_MARKER,
  ladderDocDrift,
  renderLadder,
  withLadder,
} from '../../src/reconcilers/agentdeployment/ladder-doc.js';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the decide ladder as data', () => {
  it('names each rung once, and gives each a one-line description', () => {
    const names = LADDER.map((rung) => rung.name);
    expect(new Set(names).size).toBe(names.length);
    for (const rung of LADDER) {
      expect(rung.name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(rung.doc.length).toBeGreaterThan(0);
      expect(rung.doc).not.toContain('\n');
    }
  });

  it('renders one numbered line per rung, in ladder order, between its markers', () => {
    const lines = renderLadder().split('\n');
    expect(lines[0]).toBe(LADDER_BEGIN_MARKER);
    expect(lines.at(-1)).toBe(LADDER_END_MARKER);
    const items = lines.filter((line) => /^\d+\. /.test(line));
    expect(items).toEqual(LADDER.map((rung, index) => `${index + 1}. \`${rung.name}\`: ${rung.doc}`));
  });

  it('rewrites only the region between the markers', () => {
    const document = `before\n${LADDER_BEGIN_MARKER}\nstale order\n${LADDER_END_MARKER}\nafter\n`;
    expect(withLadder(document, 'NEW')).toBe('before\nNEW\nafter\n');
  });

  it('refuses a document without its markers, naming the file', () => {
    expect(() => withLadder('no markers here')).toThrow(
      /README\.md: the markers of the generated decide ladder/,
    );
  });

  it('is what the README shows (regenerate with npx tsx scripts/generate-ladder-doc.ts)', async () => {
    expect(await ladderDocDrift(repositoryRoot)).toBeUndefined();
    const readme = await readFile(`${repositoryRoot}/README.md`, 'utf8');
    expect(readme).toContain(renderLadder());
  });
});
