import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real HTTP servers and child processes; give them room,
    // but keep a bound so a hung test fails instead of stalling CI.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every run in a temp folder of its own; the run fails if a test leaves anything there.
    globalSetup: ['./test/support/temp-dir-guard.ts'],
    // A *.unit.test.ts file that starts a server or a child process fails, here as in test:unit;
    // with UNIT_CANDIDATES=<file>, plain test files that start neither are listed there.
    setupFiles: ['./test/support/unit-purity.ts', './test/support/unit-candidates.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
