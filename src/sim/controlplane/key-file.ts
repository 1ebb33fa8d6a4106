// API keys for `emulate control-plane` from a file or the environment, in the `--api-key`
// form: a flag value shows in `ps` to every user of the machine, a file or a variable does not.
import { readFileSync } from 'node:fs';

/** Whitespace-separated `--api-key` values, read when neither flag names a key. */
export const API_KEYS_ENV = 'AGENT_OPERATOR_EMULATOR_API_KEYS';

export function keySpecs(text: string): string[] {
  return text.split(/\s+/).filter((spec) => spec !== '');
}

export function readKeyFile(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new Error(`--api-key-file: cannot read ${path} (${reason})`);
  }
  const specs = keySpecs(text);
  if (specs.length === 0) throw new Error(`--api-key-file: ${path} names no key`);
  return specs;
}
