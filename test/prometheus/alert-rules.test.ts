// The chart's alerts without a running operator: promtool checks the rendered rules and runs
// their unit tests (a firing and a silent case per alert), and every alert links a runbook
// page that exists in docs/runbooks/, through the URL pattern the chart makes configurable.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, HELM, REPO_ROOT, requireTool } from '../packaging/support/paths.js';
import { run } from '../packaging/support/run.js';
import { RELEASE, RELEASE_NAMESPACE, renderedAlertRules } from './chart-queries.js';
import { checkAndTestRules } from './promtool.js';
import { prometheusMissing } from './tools.js';

const UNIT_TESTS = join(import.meta.dirname, 'alerts.promtool-test.yaml');
const RUNBOOKS = join(REPO_ROOT, 'docs', 'runbooks');
const DEFAULT_PATTERN = 'https://github.com/agentplatform/agent-operator/blob/main/docs/runbooks/{alert}.md';

interface RuleEntry {
  alert?: string;
  annotations?: Record<string, string>;
}

async function renderedRules(...set: string[]): Promise<RuleEntry[]> {
  const result = await run(requireTool(HELM), [
    'template', RELEASE, CHART_DIR, '--namespace', RELEASE_NAMESPACE,
    '--set', 'prometheusRule.enabled=true', ...set.flatMap((value) => ['--set', value]),
    '--show-only', 'templates/prometheusrule.yaml',
  ]);
  expect(result.code, result.stderr).toBe(0);
  const rule = yaml.load(result.stdout) as { spec: { groups: Array<{ rules: RuleEntry[] }> } };
  return rule.spec.groups.flatMap((group) => group.rules).filter((entry) => entry.alert !== undefined);
}

const missing = prometheusMissing();
if (missing) console.warn(`SKIPPED promtool on the alert rules: ${missing}`);

describe('the chart’s alert rules', () => {
  it.skipIf(missing !== undefined)('pass promtool check rules and every unit test, which cover every alert', async () => {
    const rules = await renderedAlertRules();
    const tests = await readFile(UNIT_TESTS, 'utf8');
    for (const { alert } of rules.alerts) {
      expect(tests, `a unit test that fires ${alert}`).toMatch(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
    }
    for (const result of await checkAndTestRules(rules.ruleFile, UNIT_TESTS))
      expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  it('alert on the refused key, the unready connection, the unavailable control plane, the unready object and the failed deletion', async () => {
    const alerts = (await renderedRules()).map((entry) => entry.alert);
    for (const alert of [
      'AgentOperatorApiKeyRefused',
      'AgentOperatorConnectionNotReady',
      'AgentOperatorControlPlaneUnavailable',
      'AgentDeploymentNotReady',
      'AgentOperatorDataDeletionFailed',
    ])
      expect(alerts).toContain(alert);
  });

  it('link each alert to its runbook page, which exists and is listed in the runbooks index', async () => {
    const index = await readFile(join(RUNBOOKS, 'README.md'), 'utf8');
    for (const { alert = '', annotations = {} } of await renderedRules()) {
      expect(annotations['runbook_url'], alert).toBe(DEFAULT_PATTERN.replace('{alert}', alert));
      const page = join(RUNBOOKS, `${alert}.md`);
      expect(existsSync(page), `docs/runbooks/${alert}.md`).toBe(true);
      expect((await readFile(page, 'utf8')).split('\n')[0]).toBe(`# ${alert}`);
      expect(index, `docs/runbooks/README.md lists ${alert}`).toContain(`[${alert}.md](${alert}.md)`);
    }
  });

  it('take the runbook URL pattern from prometheusRule.runbookUrl', async () => {
    const rules = await renderedRules('prometheusRule.runbookUrl=https://wiki.example.com/ops/agent-operator#{alert}');
    for (const { alert = '', annotations = {} } of rules)
      expect(annotations['runbook_url']).toBe(`https://wiki.example.com/ops/agent-operator#${alert}`);
  });
});
