#!/usr/bin/env node
// The single entry point. Each subcommand lives in its own module and is loaded only when
// used, so that `agent-operator crds` does not pay for the emulators or the operator.
import { pathToFileURL } from 'node:url';
import { versionLine } from './version.js';

export interface CommandModule {
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  main(argv: string[]): Promise<number>;
}

interface CommandEntry {
  words: string[];
  summary: string;
  load: () => Promise<CommandModule>;
}

const COMMANDS: CommandEntry[] = [
  { words: ['run'], summary: 'run the operator', load: () => import('./operator/cli.js') },
  {
    words: ['demo'],
    summary: 'start both emulators and the operator, apply the examples, watch them converge',
    load: () => import('./demo/cli.js'),
  },
  { words: ['invoke'], summary: 'send a message to an agent', load: () => import('./invoke/cli.js') },
  {
    words: ['crds'],
    summary: 'print the generated CustomResourceDefinitions',
    load: () => import('./api/crds-cli.js'),
  },
  {
    words: ['connection'],
    summary: 'check a connection from here (its key, reachability, the operator status)',
    load: () => import('./connection-check/cli.js'),
  },
  {
    words: ['emulate', 'control-plane'],
    summary: 'serve the control-plane emulator',
    load: () => import('./sim/controlplane/cli.js'),
  },
  {
    words: ['emulate', 'kube'],
    summary: 'serve the Kubernetes API server emulator',
    load: () => import('./sim/kube/cli.js'),
  },
];

const EXAMPLES: Record<string, string[]> = {
  '': [
    'agent-operator demo                                   # everything locally, no cluster, no account',
    'AGENT_OPERATOR_API_KEY=... agent-operator run --region eu --namespaces team-a',
    'agent-operator crds | kubectl apply -f -',
    'agent-operator emulate kube --write-kubeconfig ./kubeconfig',
  ],
  emulate: [
    'agent-operator emulate control-plane                  # prints its URL; API key "emulator-key"',
    'agent-operator emulate kube --port 6443 --write-kubeconfig ./kubeconfig',
  ],
};

const HELP_FLAGS = new Set(['--help', '-h', 'help']);
const VERSION_FLAGS = new Set(['--version', '-V', 'version']);

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

const PROCESS_OUTPUT: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** The help of the command group `prefix` ([] for the whole CLI). */
function usage(prefix: string[]): string {
  const commands = COMMANDS.filter((c) => prefix.every((word, i) => c.words[i] === word));
  const name = ['agent-operator', ...prefix].join(' ');
  const lines = commands.map((c) => `  ${c.words.slice(prefix.length).join(' ').padEnd(22)} ${c.summary}`);
  const examples = (EXAMPLES[prefix.join(' ')] ?? []).map((line) => `  ${line}`);
  return [
    `Usage: ${name} <command> [flags]`,
    '',
    'Commands:',
    ...lines,
    '',
    'Flags:',
    '  -h, --help      show help (also after any command)',
    ...(prefix.length === 0 ? ['  -V, --version   print the version and the commit it was built from'] : []),
    '',
    'Examples:',
    ...examples,
    '',
    `Run \`${name} <command> --help\` for its flags and examples.`,
    '',
  ].join('\n');
}

export async function dispatch(argv: string[], output: Output = PROCESS_OUTPUT): Promise<number> {
  if (argv.length === 1 && VERSION_FLAGS.has(argv[0] ?? '')) {
    output.stdout(`${versionLine()}\n`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.words.every((word, i) => argv[i] === word));
  if (entry) {
    const command = await entry.load();
    return command.main(argv.slice(entry.words.length));
  }
  // A group's name alone ("emulate") or with --help shows that group's commands.
  const group = COMMANDS.some((c) => c.words.length > 1 && c.words[0] === argv[0]) ? [argv[0] ?? ''] : [];
  const rest = argv.slice(group.length);
  if (argv.length === 0 || (rest.length === 1 && HELP_FLAGS.has(rest[0] ?? ''))) {
    output.stdout(usage(group));
    return 0;
  }
  const problem =
    rest.length === 0 ? `"${group.join(' ')}" needs a command` : `unknown command "${argv.join(' ')}"`;
  output.stderr(`agent-operator: ${problem}\n\n${usage(group)}`);
  return 2;
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly || process.argv[1]?.endsWith('/agent-operator')) {
  dispatch(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`agent-operator: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
