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
