// The shell blocks of a docs page that are marked `<!-- tested: NAME -->`, as argument lists,
// so that a test runs exactly the commands the page tells users to type. Only helm and
// kubectl commands are accepted: a block that needs a shell (pipes, variables, &&) would run
// differently here than in a user's terminal, so it fails the test instead.
import { readFileSync } from 'node:fs';

const MARKER = /^\s*<!-- tested: ([a-z0-9-]+) -->\s*$/;
const RUNNABLE = new Set(['helm', 'kubectl']);

/** Every tested block of the page, by name: each a list of commands, each an argv. */
export function testedBlocks(markdownFile: string): Map<string, string[][]> {
  const lines = readFileSync(markdownFile, 'utf8').split('\n');
  const blocks = new Map<string, string[][]>();
  for (let index = 0; index < lines.length; index++) {
    const name = MARKER.exec(lines[index] ?? '')?.[1];
    if (name === undefined) continue;
    const fence = lines[index + 1]?.trim();
    if (fence !== '```sh') throw new Error(`${markdownFile}: the block "${name}" must open with \`\`\`sh on the next line`);
    const body: string[] = [];
    for (index += 2; index < lines.length && lines[index]?.trim() !== '```'; index++) body.push(lines[index] ?? '');
    if (blocks.has(name)) throw new Error(`${markdownFile}: two blocks are named "${name}"`);
    blocks.set(name, parseCommands(body.join('\n'), `${markdownFile} block "${name}"`));
  }
  return blocks;
}

/** One named block; a missing one is an error naming it (the docs and the test drifted). */
export function testedBlock(blocks: Map<string, string[][]>, name: string): string[][] {
  const block = blocks.get(name);
  if (!block) throw new Error(`no block marked <!-- tested: ${name} --> (found: ${[...blocks.keys()].join(', ')})`);
  return block;
}

function parseCommands(text: string, where: string): string[][] {
  const commands: string[][] = [];
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const words = splitWords(line, where);
    if (words.length === 0) continue;
    if (!RUNNABLE.has(words[0] ?? '')) throw new Error(`${where}: only helm and kubectl commands can be tested, got: ${line.trim()}`);
    commands.push(words);
  }
  return commands;
}

/** Words as a POSIX shell splits them, for the subset the docs use: quotes and comments. */
function splitWords(line: string, where: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index] ?? '';
    if (char === ' ' || char === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === '#' && word === undefined) {
      break;
    } else if (char === "'" || char === '"') {
      const end = line.indexOf(char, index + 1);
      if (end < 0) throw new Error(`${where}: unterminated quote in: ${line.trim()}`);
      word = (word ?? '') + line.slice(index + 1, end);
      index = end;
    } else if ('$`|&;<>()'.includes(char)) {
      throw new Error(`${where}: "${char}" needs a shell, which the test does not run: ${line.trim()}`);
    } else {
      word = (word ?? '') + char;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
