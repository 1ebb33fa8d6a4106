// The smoke test's pure parts: which test a revision owes (revision id + digest of
// spec.smokeTest), whether an answer passes `expect` and how a reply is quoted in status
// (the pause between attempts is the error policy's: smokeTestRetryDelayMs).
import { createHash } from 'node:crypto';
import type { SmokeTest, SmokeTestExpectation } from '../../api/agentdeployment/index.js';
import { lastAiText } from '../../agentruntime/client.js';

/** The longest reply excerpt status and events quote. */
export const QUOTE_LENGTH = 200;

/** The digest of spec.smokeTest: a change of any part of it runs the test again. */
export function smokeTestSpecHash(spec: SmokeTest): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex').slice(0, 16);
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

/** Whether the final state of the run meets `expect` (absent: any answer passes). */
export function judgeAnswer(
  values: Record<string, unknown>,
  expect: SmokeTestExpectation | undefined,
): Verdict {
  const reply = lastAiText(values) ?? '';
  if (expect?.contains !== undefined && !reply.includes(expect.contains)) {
    return {
      passed: false,
      reason: `the reply does not contain ${JSON.stringify(expect.contains)}: ${quote(reply)}`,
    };
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
      const got = text === undefined ? 'nothing there' : quote(text);
      return { passed: false, reason: `${expect.jsonPath} is not ${JSON.stringify(expect.equals)}: ${got}` };
    }
  }
  return { passed: true, reply };
}

/** A reply as status quotes it: one line, cut short. */
export function quote(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  const cut = oneLine.length > QUOTE_LENGTH ? `${oneLine.slice(0, QUOTE_LENGTH - 1)}…` : oneLine;
  return JSON.stringify(cut);
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
