// `agent-operator crds`: prints every CRD the operator serves (or the one named);
// `--write` regenerates the committed files; `--check` fails (exit 1) when they differ from
// what the zod schemas produce, which is how CI catches a schema change committed without
// its generated output.
import { parseArgs } from 'node:util';
import { checkGeneratedFiles, writeGeneratedFiles } from './crd/generated-files.js';
import { GENERATED_HEADER, allCrds, renderYaml } from './crd/render.js';

const USAGE = `Usage: agent-operator crds [<name>] | --write | --check [--root <dir>]

Prints the CustomResourceDefinitions (YAML, one document each) generated from the API types:
every one the operator serves, or the one <name> names (its plural, kind, short name or
full name, e.g. agentdeployments, PlatformConnection, tdel).

  --write        write crds/, the Helm chart's copy and the field reference of the docs
  --check        exit 1 with a diff when those files differ from the generated output
  --root <dir>   repository root for --write and --check (default: the current directory)
  -h, --help     show this help

Examples:
  agent-operator crds | kubectl apply -f -
  agent-operator crds platformconnections | kubectl apply -f -
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
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        write: { type: 'boolean', default: false },
        check: { type: 'boolean', default: false },
        root: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: true,
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
  if ((values.write || values.check) && positionals.length > 0) {
    io.stderr(`agent-operator crds: a name goes without --write or --check\n\n${USAGE}`);
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
  if (positionals.length > 1) {
    io.stderr(`agent-operator crds: give at most one name\n\n${USAGE}`);
    return 2;
  }
  const [name] = positionals;
  const crds = allCrds();
  const chosen = name === undefined ? crds : crds.filter((crd) => namesOf(crd).includes(name.toLowerCase()));
  if (chosen.length === 0) {
    const known = crds.map((crd) => crd.spec.names.plural).join(', ');
    io.stderr(`agent-operator crds: no CRD named "${name ?? ''}"; known: ${known}\n`);
    return 2;
  }
  io.stdout(GENERATED_HEADER + chosen.map((crd) => renderYaml(crd)).join('---\n'));
  return 0;
}

/** Every name a CRD answers to here, lower case. */
function namesOf(crd: ReturnType<typeof allCrds>[number]): string[] {
  const { plural, kind, shortNames } = crd.spec.names;
  return [crd.metadata.name, plural, kind, ...(shortNames ?? [])].map((text) => text.toLowerCase());
}
