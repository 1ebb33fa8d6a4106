// `agent-operator version [--output json]`: the package's version, the commit it was built from
// (when known) and the Node.js running it, as `kubectl version` reports its own. `--version`
// prints the short line (src/command-line/dispatch.ts).
import { parseArgs } from 'node:util';
import { buildCommit, packageVersion } from '../version.js';
import { flagErrorLine, flagProblem, USAGE_EXIT_CODE } from './flag-error.js';
import type { Output } from './dispatch.js';

export const VERSION_USAGE = `Usage: agent-operator version [flags]

Prints the version, the commit it was built from (AGENT_OPERATOR_COMMIT, which the image sets,
else git in a clone; left out when unknown) and the Node.js version.

  -o, --output text|json   the format (default text)
  -h, --help               show this help

Examples:
  agent-operator version
  agent-operator version -o json | jq -r .version
`;

export interface VersionInfo {
  version: string;
  commit?: string;
  node: string;
}

export function versionInfo(env: NodeJS.ProcessEnv = process.env): VersionInfo {
  const commit = buildCommit(env);
  return {
    version: packageVersion(),
    ...(commit === 'unknown' ? {} : { commit }),
    node: process.version,
  };
}

const PROCESS_OUTPUT: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export async function main(
  argv: string[],
  output: Output = PROCESS_OUTPUT,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let values: { output?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    output.stderr(flagErrorLine('version', flagProblem(error)));
    return USAGE_EXIT_CODE;
  }
  if (values.help === true) {
    output.stdout(VERSION_USAGE);
    return 0;
  }
  const format = values.output ?? 'text';
  if (format !== 'text' && format !== 'json') {
    output.stderr(flagErrorLine('version', `--output must be "text" or "json"; got "${format}"`));
    return USAGE_EXIT_CODE;
  }
  const info = versionInfo(env);
  output.stdout(
    format === 'json'
      ? `${JSON.stringify(info, null, 2)}\n`
      : [
          `agent-operator ${info.version}`,
          ...(info.commit === undefined ? [] : [`commit ${info.commit}`]),
          `node ${info.node}`,
        ].join('\n') + '\n',
  );
  return 0;
}
