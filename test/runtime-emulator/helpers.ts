// Plumbing for the agent runtime tests: a control-plane emulator with keys for two
// workspaces, a deployed agent, and the official SDK pointed at its runtime.
import { Client } from '@langchain/langgraph-sdk';
import {
  containerBody,
  startEmulator,
  type EmulatorClient,
  type WireDeployment,
} from '../controlplane-emulator/helpers.js';
import type { ControlPlaneEmulatorOptions } from '../../src/sim/controlplane/index.js';

export const KEY = 'emulator-key';
export const OTHER_WORKSPACE_KEY = 'other-workspace-key';
export const AUTH_HEADERS = { 'x-api-key': KEY, 'x-auth-scheme': 'platform-api-key' };

export interface RuntimeFixture {
  emulator: EmulatorClient;
  deploy(image?: string, key?: string): Promise<WireDeployment>;
}

export async function startRuntimeFixture(
  options: ControlPlaneEmulatorOptions = {},
): Promise<RuntimeFixture> {
  const emulator = await startEmulator({
    apiKeys: [{ key: KEY }, { key: OTHER_WORKSPACE_KEY }],
    ...options,
  });
  const { listenerId } = await emulator.defaults(KEY);
  return {
    emulator,
    async deploy(image = 'registry.example/agent:1', key = KEY) {
      const listener = key === KEY ? listenerId : (await emulator.defaults(key)).listenerId;
      const response = await emulator.call<WireDeployment>('POST', '/v2/deployments', {
        key,
        body: containerBody(listener, { source_revision_config: { image_uri: image } }),
      });
      if (response.status !== 201) throw new Error(`create answered ${response.status}`);
      return response.body;
    },
  };
}

export function agentUrlOf(deployment: WireDeployment): string {
  const url = deployment.source_config.custom_url;
  if (typeof url !== 'string') throw new Error('deployment has no custom_url');
  return url;
}

/** The official SDK as a user would configure it; no retries, so failures show at once. */
export function sdkClient(apiUrl: string, key: string | null = KEY): Client {
  return new Client({
    apiUrl,
    apiKey: key,
    defaultHeaders: { 'x-auth-scheme': 'platform-api-key' },
    callerOptions: { maxRetries: 0 },
  });
}

export interface AgentMessage {
  type: string;
  content: string;
  id: string;
}

export function messagesOf(values: unknown): AgentMessage[] {
  return (values as { messages: AgentMessage[] }).messages;
}

export function userInput(content: string): { messages: { role: string; content: string }[] } {
  return { messages: [{ role: 'user', content }] };
}

/** Every event of a stream, in order. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
