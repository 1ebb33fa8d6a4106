#!/usr/bin/env node
// The single entry point. Each subcommand lives in its own module and is loaded only when
// used, so that `agent-operator crds` does not pay for the emulators or the operator.
import { pathToFileURL } from 'node:url';

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
  { words: ['crds'], summary: 'print the generated CustomResourceDefinitions', load: () => import('./api/crds-cli.js') },
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

function usage(): string {
  const lines = COMMANDS.map((c) => `  agent-operator ${c.words.join(' ').padEnd(22)} ${c.summary}`);
  return ['Usage:', ...lines, '', 'Run a command with --help for its flags.'].join('\n');
}

export async function dispatch(argv: string[]): Promise<number> {
  const entry = COMMANDS.find((c) => c.words.every((word, i) => argv[i] === word));
  if (!entry) {
    const wantsHelp = argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help';
    (wantsHelp ? process.stdout : process.stderr).write(
      `${wantsHelp ? '' : `unknown command: ${argv.join(' ')}\n\n`}${usage()}\n`,
    );
    return wantsHelp ? 0 : 2;
  }
  const command = await entry.load();
  return command.main(argv.slice(entry.words.length));
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
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
