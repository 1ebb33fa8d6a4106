// Secrets never reach logs, events or status: after the run, every Secret value the workload
// ever wrote and the API key are looked for in the operator's whole log (every process) and
// in every Event and AgentDeployment the API server holds.
import { readFile } from 'node:fs/promises';
import { AGENT_DEPLOYMENTS } from '../../src/operator/operator.js';
import { EVENTS, NAMESPACE, type Stack } from '../operator/harness.js';
import type { InvariantResult } from './invariants.js';

export async function checkSecrecy(
  stack: Stack,
  logPaths: readonly string[],
  secretValues: ReadonlySet<string>,
  apiKey: string,
): Promise<InvariantResult> {
  const places: Array<[string, string]> = [
    ['the operator log', (await Promise.all(logPaths.map((path) => readFile(path, 'utf8')))).join('\n')],
    ['events', JSON.stringify((await stack.client.list(EVENTS, { namespace: NAMESPACE })).items)],
    [
      'AgentDeployments',
      JSON.stringify((await stack.client.list(AGENT_DEPLOYMENTS, { namespace: NAMESPACE })).items),
    ],
  ];
  const problems: string[] = [];
  for (const [where, text] of places) {
    // Say which kind of secret leaked and where, never the value itself.
    if (text.includes(apiKey)) problems.push(`the API key appears in ${where}`);
    const leaked = [...secretValues].filter((value) => text.includes(value)).length;
    if (leaked > 0) problems.push(`${leaked} Secret value(s) appear in ${where}`);
  }
  return {
    name: 'no Secret value or API key in the operator log, events or objects',
    ok: problems.length === 0,
    problems,
  };
}
