// Prints one plain closing line, "tests: N passed, N failed, N skipped", at the very end of
// the run, so that CI logs state the count in a form any reader can parse. The line comes
// after the temp-folder check (temp-dir-guard.ts), which vitest runs once reporters are done:
// a run that left files behind ends on a line that counts that as a failure, never on
// "0 failed".
//
// Above it, every suite that was skipped as a whole (a real cluster, Docker, Prometheus or the
// Python client not there) is named, so that a suite which never runs in CI (k3s, where CI
// has no Docker engine) is visible in the summary rather than hidden in the skipped count.
import { relative } from 'node:path';
import type { Reporter, Vitest } from 'vitest/node';
import type { RunnerTask, RunnerTestFile } from 'vitest';
import { tempLeftovers } from './temp-leftovers.js';

interface Totals {
  passed: number;
  failed: number;
  skipped: number;
}

function countTests(tasks: readonly RunnerTask[], totals: Totals, skippedSuites: string[], where: string) {
  for (const task of tasks) {
    if (task.type === 'suite') {
      const skipped = task.mode === 'skip' || task.mode === 'todo';
      if (skipped) skippedSuites.push(`${where} › ${task.name}`);
      const failedBefore = totals.failed;
      // Inside a skipped suite, the suite itself is the one to name.
      countTests(task.tasks, totals, skipped ? [] : skippedSuites, where);
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
  private skippedSuites: string[] = [];
  private root = process.cwd();
  private filteredByName = false;

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    // With -t, every suite that does not match reads as skipped: naming them would be noise.
    this.filteredByName = vitest.config.testNamePattern !== undefined;
    // onClose callbacks run after the global setups' teardown, where the temp check lives.
    vitest.onClose(() => this.printClosingLine());
  }

  onFinished(files: RunnerTestFile[] = [], errors: unknown[] = []): void {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    const skippedSuites: string[] = [];
    for (const file of files) {
      countTests(file.tasks, totals, skippedSuites, relative(this.root, file.filepath));
      // A file that failed to load has no tests but is a failure all the same.
      if (file.result?.state === 'fail' && file.tasks.length === 0) totals.failed += 1;
    }
    totals.failed += errors.length;
    this.totals = totals;
    this.skippedSuites = this.filteredByName ? [] : skippedSuites;
  }

  private printClosingLine(): void {
    const totals = this.totals;
    if (!totals) return;
    this.totals = undefined;
    const leftovers = tempLeftovers() ?? [];
    for (const suite of this.skippedSuites) process.stdout.write(`\nskipped suite, not run: ${suite}`);
    const failed = totals.failed + (leftovers.length > 0 ? 1 : 0);
    process.stdout.write(`\ntests: ${totals.passed} passed, ${failed} failed, ${totals.skipped} skipped\n`);
  }
}
