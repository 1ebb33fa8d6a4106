// One UUID rule for the CRD and the operator. The operator checks ids with zod's `z.uuid()`
// (RFC 9562: 8-4-4-4-12 hexadecimal digits, version 1 to 8, variant 10xx, or the nil and max
// UUIDs), in the spec check and again in the control-plane client before a request is sent.
// The API server's `format: uuid` is looser (any 32 hexadecimal digits, hyphens optional),
// so an id it admitted could still be refused by the operator. The CRD therefore carries
// zod's own regular expression as a CEL rule: both sides test the same expression, and an id
// is either refused at `kubectl apply` or accepted all the way to the control plane.
import { z } from 'zod';
import { CEL_RULES_KEY, type CelRule, celRule } from './cel.js';

/** The expression `z.uuid()` tests; RE2-compatible, so the API server's CEL `matches` runs it unchanged. */
export const UUID_REGEX: RegExp = z.regexes.uuid();

/** What both the API server and the operator say about an id that is not a UUID. */
export function uuidRuleMessage(displayPath: string): string {
  return `${displayPath} must be a UUID (RFC 9562: 8-4-4-4-12 hexadecimal digits, version 1 to 8, variant 8, 9, a or b)`;
}

export function uuidCelRule(displayPath: string): CelRule {
  return celRule(`self.matches('${UUID_REGEX.source}')`, uuidRuleMessage(displayPath));
}

/**
 * A UUID field of the spec: zod's rule for the operator, the same rule as CEL for the API
 * server. The length bound keeps the API server's cost estimate of `matches` small (without
 * it the estimate assumes a string as long as a whole request and may refuse the CRD).
 */
export function uuidField(displayPath: string, description: string) {
  return z
    .uuid({ error: uuidRuleMessage(displayPath) })
    .max(36)
    .meta({ description, [CEL_RULES_KEY]: [uuidCelRule(displayPath)] });
}
