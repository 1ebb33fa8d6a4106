// What both entry points share: a table of commands, the help it prints at every level, and
// the dispatch of argv to the one command it names. The tables themselves live with their
// entry points, so that the production CLI's table cannot name a development command.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { versionLine } from '../version.js';

export interface CommandModule {
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  main(argv: string[]): Promise<number>;
}

export interface CommandEntry {
  words: string[];
  summary: string;
  load: () => Promise<CommandModule>;
}

export interface CommandTable {
  commands: CommandEntry[];
  /** Example lines per command group ('' is the whole CLI). */
  examples: Record<string, string[]>;
}

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

const PROCESS_OUTPUT: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

const HELP_FLAGS = new Set(['--help', '-h', 'help']);
// `version` (the word) is a command of its own, with --output json: ./version-command.ts.
const VERSION_FLAGS = new Set(['--version', '-V']);

/** The help of the command group `prefix` ([] for the whole CLI). */
function usage(table: CommandTable, prefix: string[]): string {
  const commands = table.commands.filter((c) => prefix.every((word, i) => c.words[i] === word));
  const name = ['agent-operator', ...prefix].join(' ');
  const lines = commands.map((c) => `  ${c.words.slice(prefix.length).join(' ').padEnd(22)} ${c.summary}`);
  const examples = (table.examples[prefix.join(' ')] ?? []).map((line) => `  ${line}`);
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

export async function dispatch(
  table: CommandTable,
  argv: string[],
  output: Output = PROCESS_OUTPUT,
): Promise<number> {
  if (argv.length === 1 && VERSION_FLAGS.has(argv[0] ?? '')) {
    output.stdout(`${versionLine()}\n`);
    return 0;
  }
  const entry = table.commands.find((c) => c.words.every((word, i) => argv[i] === word));
  if (entry) {
    const command = await entry.load();
    return command.main(argv.slice(entry.words.length));
  }
  // A group's name alone ("emulate") or with --help shows that group's commands.
  const group = table.commands.some((c) => c.words.length > 1 && c.words[0] === argv[0])
    ? [argv[0] ?? '']
    : [];
  const rest = argv.slice(group.length);
  if (argv.length === 0 || (rest.length === 1 && HELP_FLAGS.has(rest[0] ?? ''))) {
    output.stdout(usage(table, group));
    return 0;
  }
  const problem =
    rest.length === 0 ? `"${group.join(' ')}" needs a command` : `unknown command "${argv.join(' ')}"`;
  const help = ['agent-operator', ...group, '--help'].join(' ');
  output.stderr(`agent-operator: ${problem} (see ${help})\n`);
  return 2;
}

/**
 * True when the module at `moduleUrl` is the program node was started with. The path is
 * resolved through symlinks, since npm starts a package's bin through one
 * (node_modules/.bin/agent-operator); comparing real paths also keeps an entry point that
 * another one imports from running as well.
 */
export function isMainModule(moduleUrl: string): boolean {
  const started = process.argv[1];
  if (started === undefined) return false;
  try {
    return pathToFileURL(realpathSync(started)).href === moduleUrl;
  } catch {
    return false;
  }
}

/** Dispatches the process's arguments and sets its exit code. */
export function runCommandLine(table: CommandTable): void {
  dispatch(table, process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`agent-operator: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
