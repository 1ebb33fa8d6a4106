// How every command reports a bad flag, the way kubectl does: one line that names the flag and
// the rule, then where the help is, and exit code 2. The usage is not reprinted: after a typo
// in one flag, 25 lines of help bury the one line that says what was wrong.

/** Exit code of a command given bad flags or arguments. */
export const USAGE_EXIT_CODE = 2;

/** node:util parseArgs's errors, reworded to name the flag first. Other errors keep their message. */
export function flagProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const flag = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) return `unknown flag ${flag}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined) {
    return message.includes('does not take an argument') ? `${flag} takes no value` : `${flag} needs a value`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const argument = /'([^']*)'/.exec(message)?.[1] ?? '';
    return `unexpected argument "${argument}"`;
  }
  return message;
}

/** The one line a command prints for a bad flag: `agent-operator run: --timeout needs a value (see agent-operator run --help)`. */
export function flagErrorLine(command: string, problem: string): string {
  return `agent-operator ${command}: ${problem} (see agent-operator ${command} --help)\n`;
}
