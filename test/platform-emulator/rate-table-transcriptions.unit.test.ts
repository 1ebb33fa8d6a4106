// The emulator and the client each transcribed the published rate table on their own (the
// emulator must not reuse the client's copy). Two transcriptions that agree row by row make a
// typo in either one visible.
import { describe, expect, it } from 'vitest';
import { RATE_TABLE } from '../../src/controlplane/budget/rate-table.js';
import { PUBLISHED_ROWS } from '../../src/sim/platform/rate-rows.js';

describe('the published rate table', () => {
  it('reads the same in the emulator and in the client: identity, category and both columns, row by row', () => {
    expect(PUBLISHED_ROWS).toHaveLength(29);
    expect(PUBLISHED_ROWS.map((row) => [row.category, row.identity, row.limits.us, row.limits.eu])).toEqual(
      RATE_TABLE.map((row) => [row.category, row.identity, row.us, row.eu]),
    );
  });
});
