// `agent-operator crds`: prints the AgentDeployment CRD; `--write` regenerates the committed
// files; `--check` fails (exit 1) when they differ from what the zod schemas produce, which
// is how CI catches a schema change committed without its generated output.
import { parseArgs } from 'node:util';
import { checkGeneratedFiles, writeGeneratedFiles } from './crd/generated-files.js';
import { renderAgentDeploymentCrd } from './crd/render.js';

const USAGE = `Usage: agent-operator crds [--write | --check] [--root <dir>]

Prints the AgentDeployment CustomResourceDefinition (YAML) generated from the API types.

  --write        write crds/, the Helm chart's copy and the field reference of the docs
  --check        exit 1 with a diff when those files differ from the generated output
  --root <dir>   repository root for --write and --check (default: the current directory)
  -h, --help     show this help

Examples:
  agent-operator crds | kubectl apply -f -
  agent-operator crds --check      # in CI: fails when the schemas changed without regenerating
`;

export interface CrdsCliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIo: CrdsCliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export async function main(argv: string[], io: CrdsCliIo = processIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        write: { type: 'boolean', default: false },
        check: { type: 'boolean', default: false },
        root: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr(`agent-operator crds: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (values.write && values.check) {
    io.stderr(`agent-operator crds: --write and --check cannot be used together\n\n${USAGE}`);
    return 2;
  }
  const root = values.root ?? process.cwd();
  if (values.write) {
    const changed = await writeGeneratedFiles(root);
    io.stdout(
      changed.length === 0 ? 'generated files are up to date\n' : changed.map((p) => `wrote ${p}\n`).join(''),
    );
    return 0;
  }
  if (values.check) {
    const drifts = await checkGeneratedFiles(root);
    if (drifts.length === 0) {
      io.stdout('generated files are up to date\n');
      return 0;
    }
    for (const drift of drifts)
      io.stderr(`--- ${drift.path} (committed)\n+++ ${drift.path} (generated)\n${drift.message}\n\n`);
    io.stderr(
      `${drifts.length} generated file(s) differ from the API types; run \`agent-operator crds --write\` (npx tsx src/cli.ts crds --write) and commit the result\n`,
    );
    return 1;
  }
  io.stdout(renderAgentDeploymentCrd());
  return 0;
}
