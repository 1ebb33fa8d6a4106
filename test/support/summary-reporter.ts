// Prints one plain closing line, "tests: N passed, N failed, N skipped", at the very end of
// the run, so that CI logs state the count in a form any reader can parse. The line comes
// after the temp-folder check (temp-dir-guard.ts), which vitest runs once reporters are done:
// a run that left files behind ends on a line that counts that as a failure, never on
// "0 failed".
import type { Reporter, Vitest } from 'vitest/node';
import type { RunnerTask, RunnerTestFile } from 'vitest';
import { tempLeftovers } from './temp-leftovers.js';

interface Totals {
  passed: number;
  failed: number;
  skipped: number;
}

function countTests(tasks: readonly RunnerTask[], totals: Totals) {
  for (const task of tasks) {
    if (task.type === 'suite') {
      const failedBefore = totals.failed;
      countTests(task.tasks, totals);
      // A failed hook (beforeAll) fails the suite while its tests read as skipped: count
      // it once, unless a failing test already explains the suite's failure.
      if (task.result?.state === 'fail' && totals.failed === failedBefore) totals.failed += 1;
      continue;
    }
    const state = task.result?.state;
    if (state === 'pass') totals.passed += 1;
    else if (state === 'fail') totals.failed += 1;
    else totals.skipped += 1;
  }
}

export default class SummaryReporter implements Reporter {
  private totals: Totals | undefined;

  onInit(vitest: Vitest): void {
    // onClose callbacks run after the global setups' teardown, where the temp check lives.
    vitest.onClose(() => this.printClosingLine());
  }

  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    for (const file of files) {
      countTests(file.tasks, totals);
      // A file that failed to load has no tests but is a failure all the same.
      if (file.result?.state === 'fail' && file.tasks.length === 0) totals.failed += 1;
    }
    totals.failed += errors.length;
    this.totals = totals;
  }

  private printClosingLine(): void {
    const totals = this.totals;
    if (!totals) return;
    this.totals = undefined;
    const leftovers = tempLeftovers() ?? [];
    const failed = totals.failed + (leftovers.length > 0 ? 1 : 0);
    process.stdout.write(`\ntests: ${totals.passed} passed, ${failed} failed, ${totals.skipped} skipped\n`);
  }
}
