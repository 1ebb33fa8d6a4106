// The smoke test's pure parts: which test a revision owes (revision id + digest of
// spec.smokeTest), whether an answer passes `expect` and how a reply is quoted in status
// (the pause between attempts is the error policy's: smokeTestRetryDelayMs).
import { createHash } from 'node:crypto';
import type { SmokeTest, SmokeTestExpectation } from '../../api/agentdeployment/index.js';
import { lastAiText } from '../../agentruntime/client.js';

/** The longest reply excerpt status and events quote. */
export const QUOTE_LENGTH = 200;
/** The longest verdict message: status.smokeTest.message allows 1024 characters. */
export const VERDICT_LENGTH = 1000;

/**
 * The digest of spec.smokeTest and the resourceVersions of its header Secrets: a change of
 * any part runs the test again. Without header Secrets it is the spec's alone (as before
 * headers existed, so recorded verdicts stay valid).
 */
export function smokeTestSpecHash(
  spec: SmokeTest,
  headerSecretVersions: Record<string, string> = {},
): string {
  const digested = Object.keys(headerSecretVersions).length === 0 ? spec : { spec, headerSecretVersions };
  return createHash('sha256').update(canonicalJson(digested)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export type Verdict = { passed: true; reply: string } | { passed: false; reason: string };

/**
 * Whether the final state of the run meets `expect` (absent: any answer passes). What it
 * quotes goes through `redact` before it is cut short, so no part of a key survives a cut.
 */
export function judgeAnswer(
  values: Record<string, unknown>,
  expect: SmokeTestExpectation | undefined,
  redact: (text: string) => string = (text) => text,
): Verdict {
  const show = (text: string) => quote(redact(text));
  const reply = lastAiText(values) ?? '';
  if (expect?.contains !== undefined && !reply.includes(expect.contains)) {
    return { passed: false, reason: `the reply does not contain ${show(expect.contains)}: ${show(reply)}` };
  }
  if (expect?.jsonPath !== undefined && expect.equals !== undefined) {
    const found = readJsonPath(values, expect.jsonPath);
    const text =
      found.kind === 'value'
        ? typeof found.value === 'string'
          ? found.value
          : JSON.stringify(found.value)
        : undefined;
    if (text !== expect.equals) {
      const got = text === undefined ? 'nothing there' : show(text);
      return { passed: false, reason: `${expect.jsonPath} is not ${show(expect.equals)}: ${got}` };
    }
  }
  return { passed: true, reply: redact(reply) };
}

/** A reply as status quotes it: one line, cut short. */
export function quote(text: string): string {
  return JSON.stringify(clip(text.replace(/\s+/g, ' ').trim(), QUOTE_LENGTH));
}

/** `text` cut to at most `max` characters, marked with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

type PathResult = { kind: 'value'; value: unknown } | { kind: 'missing' };

/** The subset of JSONPath the spec allows: `$`, `.field` and `[index]` (negative from the end). */
export function readJsonPath(root: unknown, path: string): PathResult {
  const steps = path.slice(1).match(/\.[A-Za-z_][A-Za-z0-9_]*|\[-?[0-9]+\]/g) ?? [];
  let current: unknown = root;
  for (const step of steps) {
    if (step.startsWith('.')) {
      if (typeof current !== 'object' || current === null || Array.isArray(current))
        return { kind: 'missing' };
      const field = step.slice(1);
      if (!Object.hasOwn(current, field)) return { kind: 'missing' };
      current = (current as Record<string, unknown>)[field];
    } else {
      if (!Array.isArray(current)) return { kind: 'missing' };
      const index = Number(step.slice(1, -1));
      const at = index < 0 ? current.length + index : index;
      if (at < 0 || at >= current.length) return { kind: 'missing' };
      current = current[at];
    }
  }
  return { kind: 'value', value: current };
}
