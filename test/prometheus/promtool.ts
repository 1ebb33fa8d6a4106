// promtool, the linter and rule tester that ships with Prometheus.
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, type RunResult } from '../packaging/support/run.js';

export function checkMetrics(exposition: string): Promise<RunResult> {
  return run('promtool', ['check', 'metrics'], { input: exposition });
}

/** `promtool check rules` and `promtool test rules` over one rule file, in a temp dir. */
export async function checkAndTestRules(ruleFile: string, unitTests: string): Promise<RunResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'promtool-test-'));
  try {
    await writeFile(join(dir, 'rules.yaml'), ruleFile);
    await copyFile(unitTests, join(dir, 'tests.yaml'));
    return [
      await run('promtool', ['check', 'rules', join(dir, 'rules.yaml')]),
      await run('promtool', ['test', 'rules', join(dir, 'tests.yaml')]),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Metric families that appear more than once (a second HELP or TYPE line makes Prometheus drop the scrape). */
export function repeatedFamilies(exposition: string): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const line of exposition.split('\n')) {
    const match = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    if (!match?.[1]) continue;
    const key = `${line.slice(2, 6)} ${match[1]}`;
    if (seen.has(key)) repeated.add(match[1]);
    seen.add(key);
  }
  return [...repeated];
}
