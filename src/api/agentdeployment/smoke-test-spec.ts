// spec.smokeTest: the call the operator makes to a freshly deployed revision before it calls
// the object Ready. The input is the graph's input state as messages (what the platform's
// agents take); `expect` says what the reply must show.
import { z } from 'zod';
import { CEL_RULES_KEY, celRule } from './cel.js';
import { SecretKeySelector } from './secret-key-selector.js';

export const SMOKE_TEST_ROLES = ['user', 'human', 'system'] as const;
export const SMOKE_TEST_DEFAULT_TIMEOUT_SECONDS = 20;
export const SMOKE_TEST_MAX_TIMEOUT_SECONDS = 600;

export const SmokeTestMessage = z
  .object({
    role: z.enum(SMOKE_TEST_ROLES).describe('Who speaks: user (or human) or system.'),
    content: z.string().min(1).max(4096).describe('The text of the message.'),
  })
  .describe('One message of the input.');

export const SmokeTestExpectation = z
  .object({
    contains: z
      .string()
      .min(1)
      .max(1024)
      .describe('The text of the last AI message must contain this string (case-sensitive).')
      .optional(),
    jsonPath: z
      .string()
      .min(2)
      .max(256)
      .regex(/^\$(\.[A-Za-z_][A-Za-z0-9_]*|\[-?[0-9]+\])+$/)
      .describe(
        'A path into the final state, in the form $.field[index].field (a negative index counts from the end), e.g. $.messages[-1].content; used with equals.',
      )
      .optional(),
    equals: z
      .string()
      .max(1024)
      .describe('The value at jsonPath must equal this string (a non-string value is compared as JSON).')
      .optional(),
  })
  .meta({
    description: 'What the reply must show; absent: any successful run passes.',
    [CEL_RULES_KEY]: [
      celRule(
        'has(self.jsonPath) == has(self.equals)',
        'spec.smokeTest.expect.jsonPath and spec.smokeTest.expect.equals go together: set both or neither',
      ),
    ],
  });

/**
 * Headers the smoke test may not set: the platform's own credential and scheme (a tenant
 * must not replace or read the operator's key through them), the tenant routing header, and
 * HTTP framing and hop-by-hop headers, which the HTTP client owns. Lower case.
 */
export const FORBIDDEN_SMOKE_TEST_HEADERS = [
  'x-api-key',
  'x-auth-scheme',
  'authorization',
  'proxy-authorization',
  'x-tenant-id',
  'cookie',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
] as const;
export const SMOKE_TEST_MAX_HEADERS = 8;
/** An HTTP field name: an RFC 7230 token. */
export const HEADER_NAME_REGEX = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
const FORBIDDEN_HEADERS_MESSAGE = `spec.smokeTest.headers[].name must not be one of the operator's own or HTTP framing headers (${FORBIDDEN_SMOKE_TEST_HEADERS.join(', ')})`;

/** Why a header name is refused (the field and the rule), or undefined when it may be sent. */
export function smokeTestHeaderProblem(
  name: string,
  field = 'spec.smokeTest.headers[].name',
): string | undefined {
  if (!new RegExp(HEADER_NAME_REGEX).test(name))
    return `${field}: "${name}" is not an HTTP header name (an RFC 7230 token)`;
  if ((FORBIDDEN_SMOKE_TEST_HEADERS as readonly string[]).includes(name.toLowerCase())) {
    return `${field}: "${name}" is the operator's own or an HTTP framing header and cannot be set`;
  }
  return undefined;
}

export const SmokeTestHeader = z
  .object({
    name: z
      .string()
      .min(1)
      .max(128)
      .regex(new RegExp(HEADER_NAME_REGEX))
      .meta({
        description:
          "The header name (an RFC 7230 token), e.g. x-user-token. Not one of the platform's own headers (x-api-key, x-auth-scheme, authorization, x-tenant-id) nor an HTTP framing header.",
        [CEL_RULES_KEY]: [
          celRule(
            `!(self.lowerAscii() in [${FORBIDDEN_SMOKE_TEST_HEADERS.map((name) => `'${name}'`).join(', ')}])`,
            FORBIDDEN_HEADERS_MESSAGE,
          ),
        ],
      })
      .refine((name) => smokeTestHeaderProblem(name) === undefined, { message: FORBIDDEN_HEADERS_MESSAGE }),
    valueFrom: z
      .object({
        secretKeyRef: SecretKeySelector.describe(
          'The value: one key of a Secret in the namespace of this AgentDeployment (never logged, never shown in status or events).',
        ),
      })
      .describe('Where the value comes from.'),
  })
  .describe(
    'One header sent with the smoke-test call, e.g. what an agent with custom authentication expects.',
  );

export const SmokeTest = z
  .object({
    input: z
      .object({
        messages: z
          .array(SmokeTestMessage)
          .min(1)
          .max(16)
          .describe('The messages sent to the agent, in order.'),
      })
      .describe('The input state of the stateless run.'),
    expect: SmokeTestExpectation.optional(),
    apiKeySecretRef: SecretKeySelector.describe(
      "A key of your own for the call, sent as X-Api-Key instead of the connection's key. Needed when spec.sourceConfig.customUrl names a host the connection's agentHosts does not list: the operator never sends a shared key to an address a tenant chose.",
    ).optional(),
    headers: z
      .array(SmokeTestHeader)
      .max(SMOKE_TEST_MAX_HEADERS)
      .meta({
        description:
          "Headers of your own sent with the call, beside the operator's X-Api-Key and X-Auth-Scheme, their values read from Secrets of this namespace: what an agent with custom authentication expects. A changed Secret runs the test again.",
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      })
      .optional(),
    timeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(SMOKE_TEST_MAX_TIMEOUT_SECONDS)
      .default(SMOKE_TEST_DEFAULT_TIMEOUT_SECONDS)
      .describe(
        'Budget for the smoke test of one revision, retries included: failures that may pass later (503 while the agent warms up, timeouts) are retried with backoff until it is spent.',
      ),
  })
  .describe(
    'A call to the agent (a stateless run, /runs/wait) after every revision reaches DEPLOYED; with it, Ready requires the call to pass (condition SmokeTestPassed).',
  );

export type SmokeTestMessage = z.infer<typeof SmokeTestMessage>;
export type SmokeTestExpectation = z.infer<typeof SmokeTestExpectation>;
export type SmokeTest = z.infer<typeof SmokeTest>;
export type SmokeTestHeader = z.infer<typeof SmokeTestHeader>;
