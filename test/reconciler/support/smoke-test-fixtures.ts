// A deployed external_container deployment with an agent address, as the smoke-test tests
// of decide and of the shell start from.
import type { Deployment } from '../../../src/controlplane/models/index.js';

export const DEPLOYMENT_ID = '11111111-1111-4111-8111-111111111111';
export const LISTENER_ID = '33333333-3333-4333-8333-333333333333';
export const AGENT_URL = 'http://127.0.0.1:9/agents/11111111';

export function deployedWithUrl(overrides: Partial<Deployment> = {}): Deployment {
  return {
    id: DEPLOYMENT_ID,
    name: 'bot',
    source: 'external_container',
    source_config: { listener_id: LISTENER_ID, custom_url: AGENT_URL },
    source_revision_config: { image_uri: 'registry.example/bot:1' },
    secrets: [],
    tenant_id: '00000000-0000-4000-8000-000000000000',
    created_at: '2026-11-23T11:59:00Z',
    updated_at: '2026-11-23T11:59:00Z',
    status: 'READY',
    latest_revision_id: 'r1',
    active_revision_id: 'r1',
    ...overrides,
  };
}

export const DESIRED = {
  name: 'bot',
  source: 'external_container' as const,
  source_config: { listener_id: LISTENER_ID },
  source_revision_config: { image_uri: 'registry.example/bot:1' },
  secrets: [],
};
