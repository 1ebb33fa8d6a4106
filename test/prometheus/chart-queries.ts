// What the chart asks Prometheus: every query of every Grafana dashboard panel, the
// dashboard's template variables, and the PrometheusRule's alerts as `helm template` renders
// them. Read from the chart's own files, so a panel or alert added later is checked too.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { CHART_DIR, HELM, requireTool } from '../packaging/support/paths.js';
import { run } from '../packaging/support/run.js';

export const RELEASE = 'agent-operator';
export const RELEASE_NAMESPACE = 'agent-operator-system';
/** The Service the chart puts in front of the metrics port (the ServiceMonitor's `service` label). */
export const METRICS_SERVICE = `${RELEASE}-metrics`;

export interface PanelQuery {
  panel: string;
  expr: string;
}

interface Panel {
  title?: string;
  panels?: Panel[];
  targets?: Array<{ expr?: string }>;
}

export interface QueryVariable {
  name: string;
  /** `label_values(<selector>, <label>)` */
  selector: string;
  label: string;
}

interface Dashboard {
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: string | { query?: string } }> };
}

async function dashboard(): Promise<Dashboard> {
  return JSON.parse(
    await readFile(join(CHART_DIR, 'dashboards', 'agent-operator.json'), 'utf8'),
  ) as Dashboard;
}

export async function dashboardQueries(): Promise<PanelQuery[]> {
  const queries: PanelQuery[] = [];
  const walk = (panels: Panel[]): void => {
    for (const panel of panels) {
      if (panel.panels) walk(panel.panels);
      for (const target of panel.targets ?? [])
        if (target.expr) queries.push({ panel: panel.title ?? '(untitled)', expr: target.expr });
    }
  };
  walk((await dashboard()).panels);
  return queries;
}

export async function dashboardVariables(): Promise<QueryVariable[]> {
  const variables: QueryVariable[] = [];
  for (const variable of (await dashboard()).templating.list) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '');
    const match = /^label_values\((.*),\s*(\w+)\)$/.exec(query.trim());
    if (!match?.[1] || !match[2]) throw new Error(`variable ${variable.name}: unsupported query ${query}`);
    variables.push({ name: variable.name, selector: match[1], label: match[2] });
  }
  return variables;
}

export interface AlertRule {
  alert: string;
  expr: string;
}

export interface RenderedRules {
  /** A Prometheus rule file: the PrometheusRule's `spec`. */
  ruleFile: string;
  alerts: AlertRule[];
}

export async function renderedAlertRules(): Promise<RenderedRules> {
  const result = await run(requireTool(HELM), [
    'template',
    RELEASE,
    CHART_DIR,
    '--namespace',
    RELEASE_NAMESPACE,
    '--set',
    'prometheusRule.enabled=true',
    '--show-only',
    'templates/prometheusrule.yaml',
  ]);
  if (result.code !== 0) throw new Error(`helm template: ${result.stderr}`);
  const rule = yaml.load(result.stdout) as {
    spec: { groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> };
  };
  const alerts = rule.spec.groups.flatMap((group) =>
    group.rules.flatMap((entry) => (entry.alert ? [{ alert: entry.alert, expr: entry.expr }] : [])),
  );
  return { ruleFile: yaml.dump(rule.spec), alerts };
}

/**
 * The part of an alert expression that must have series for the alert to be able to fire:
 * the left side of its top-level threshold (`max(x) > 100` -> `max(x)`), or what `absent()`
 * looks for. The threshold itself is promtool's unit tests' business.
 */
export function alertOperand(expr: string): string {
  const trimmed = expr.trim();
  const absent = /^absent\((.*)\)$/s.exec(trimmed);
  if (absent?.[1]) return absent[1].trim();
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < trimmed.length; i++) {
    const char = trimmed[i] ?? '';
    if (quote) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (depth === 0 && /^(==|!=|>=|<=|>|<)/.test(trimmed.slice(i))) return trimmed.slice(0, i).trim();
  }
  return trimmed;
}
