// Runs an Argo CD health script under the real lua5.1, the way Argo CD does: the resource
// is the global `obj`, the script's chunk returns {status, message}. The YAML testdata is
// turned into a Lua table constructor (Lua 5.1 has no YAML or JSON reader of its own).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './run.js';

export const LUA = 'lua5.1';

function luaString(text: string): string {
  // %q-style quoting: backslash, quote and every control character become decimal escapes.
  let quoted = '';
  for (const character of text) {
    const code = character.charCodeAt(0);
    quoted +=
      code < 32 || character === '\\' || character === '"'
        ? `\\${code.toString().padStart(3, '0')}`
        : character;
  }
  return `"${quoted}"`;
}

/** A Lua table constructor for a YAML/JSON value; null becomes nil, as in Argo CD's conversion. */
export function toLuaLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return luaString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'nil';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return luaString(value.toISOString().replace('.000Z', 'Z'));
  if (Array.isArray(value)) return `{${value.map(toLuaLiteral).join(', ')}}`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `[${luaString(k)}] = ${toLuaLiteral(v)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  throw new Error(`cannot express ${typeof value} in Lua`);
}

export interface HealthStatus {
  status: string;
  message: string;
}

const HARNESS = `
local scriptPath, objectPath = arg[1], arg[2]
obj = dofile(objectPath)
local check = assert(loadfile(scriptPath))
local hs = check()
if type(hs) ~= "table" then error("health script returned " .. type(hs)) end
io.write(tostring(hs.status), "\\n", hs.message == nil and "" or tostring(hs.message))
`;

export async function runHealthScript(scriptPath: string, object: unknown): Promise<HealthStatus> {
  const dir = await mkdtemp(join(tmpdir(), 'argocd-health-'));
  try {
    const harnessPath = join(dir, 'harness.lua');
    const objectPath = join(dir, 'object.lua');
    await writeFile(harnessPath, HARNESS);
    await writeFile(objectPath, `return ${toLuaLiteral(object)}\n`);
    const result = await run(LUA, [harnessPath, scriptPath, objectPath]);
    if (result.code !== 0) throw new Error(`lua5.1 failed (${result.code}): ${result.stderr}`);
    const newline = result.stdout.indexOf('\n');
    return { status: result.stdout.slice(0, newline), message: result.stdout.slice(newline + 1) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
