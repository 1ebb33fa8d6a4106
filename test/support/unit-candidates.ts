// Vitest setup file, opt-in: with UNIT_CANDIDATES=<file>, every plain *.test.ts file whose
// tests ran but that started no server and no child process is appended to <file>. Those are
// pure tests under the integration name, which `npm run test:unit` does not run: rename them
// to *.unit.test.ts. The unit-purity guard checks the other direction on every run.
import { appendFileSync } from 'node:fs';
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { relative } from 'node:path';
import { afterAll, expect, type RunnerTask } from 'vitest';
import { UNIT_TEST_FILE } from './unit-purity.js';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

function anyTestRan(tasks: readonly RunnerTask[]): boolean {
  return tasks.some((task) =>
    task.type === 'suite'
      ? anyTestRan(task.tasks)
      : task.result?.state === 'pass' || task.result?.state === 'fail',
  );
}

const report = process.env['UNIT_CANDIDATES'];
const testPath = expect.getState().testPath ?? '';
if (report && testPath !== '' && !UNIT_TEST_FILE.test(testPath)) {
  let started = false;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function noteListen(this: net.Server, ...args: unknown[]) {
    started = true;
    return (listen as (...a: unknown[]) => net.Server).apply(this, args);
  };
  const writable = childProcess as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of STARTERS) {
    const original = writable[name];
    if (!original) continue;
    const noted = (...args: unknown[]) => {
      started = true;
      return original(...args);
    };
    // Keep what hangs on the original, util.promisify.custom above all (exec, execFile).
    Object.defineProperties(noted, Object.getOwnPropertyDescriptors(original));
    writable[name] = noted;
  }
  syncBuiltinESMExports();
  afterAll((file) => {
    if (!started && anyTestRan(file.tasks)) appendFileSync(report, `${relative(process.cwd(), testPath)}\n`);
  });
}
