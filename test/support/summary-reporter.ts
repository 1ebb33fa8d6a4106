// Prints one plain closing line, "tests: N passed, N failed, N skipped", after vitest's
// own report, so that CI logs state the count in a form any reader can parse.
import type { Reporter } from 'vitest/reporters';
import type { RunnerTask, RunnerTestFile } from 'vitest';

function countTests(tasks: readonly RunnerTask[], totals: { passed: number; failed: number; skipped: number }) {
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
  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    for (const file of files) {
      countTests(file.tasks, totals);
      // A file that failed to load has no tests but is a failure all the same.
      if (file.result?.state === 'fail' && file.tasks.length === 0) totals.failed += 1;
    }
    totals.failed += errors.length;
    process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  }
}
