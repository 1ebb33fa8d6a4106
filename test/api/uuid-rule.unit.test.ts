// One UUID rule for the CRD and the operator: an id the API server admits is never refused
// by the operator as not a UUID, and the other way round. Four judges, one verdict per id:
// the CRD's CEL rule, the Kubernetes emulator's whole admission (format, then CEL), the
// operator's spec check, and the control-plane client's check of the request it would send.
import { describe, expect, it } from 'vitest';
import { UUID_REGEX, toWireCreateRequest, AgentDeploymentSpec } from '../../src/api/agentdeployment/index.js';
import { agentDeploymentOpenApiSchema } from '../../src/api/crd/agentdeployment-crd.js';
import type { JsonSchema } from '../../src/api/crd/structural-schema.js';
import { validateAgentDeploymentSpec } from '../../src/api/validation/validate-spec.js';
import { DeploymentCreateRequest } from '../../src/controlplane/models/index.js';
import { prepareCustomResource, type JSONSchemaProps } from '../../src/sim/kube/validation/index.js';
import { celViolations } from './support/cel-harness.js';
import {
  INTEGRATION_ID,
  externalContainerObject,
  repoHostObject,
  type TestObject,
} from './support/fixtures.js';

const schema = agentDeploymentOpenApiSchema();
const specSchema = schema.properties?.spec as JsonSchema;
const emulatorSchema = schema as unknown as JSONSchemaProps;

const IDS: [string, string, boolean][] = [
  ['version 4', '7d4d5c8e-2a8b-4f6e-9c1d-3b2a1f0e9d87', true],
  ['version 5, upper case', '53A22649-B624-5585-B661-5F2B13429240', true],
  ['version 7', '01890a5d-ac96-774b-bcce-b302099a8057', true],
  ['the nil UUID', '00000000-0000-0000-0000-000000000000', true],
  ['the max UUID', 'ffffffff-ffff-ffff-ffff-ffffffffffff', true],
  // What `format: uuid` alone admits and the operator refused as "Invalid UUID".
  ['version 0', '00000000-0000-0000-0000-000000000001', false],
  ['variant 0 (NCS)', '7d4d5c8e-2a8b-4f6e-1c1d-3b2a1f0e9d87', false],
  ['without hyphens', '7d4d5c8e2a8b4f6e9c1d3b2a1f0e9d87', false],
  ['in braces', '{7d4d5c8e-2a8b-4f6e-9c1d-3b2a1f0e9d87}', false],
  ['not hexadecimal', '7d4d5c8e-2a8b-4f6e-9c1d-3b2a1f0e9dzz', false],
];

const FIELDS = [
  { path: 'spec.sourceConfig.listenerId', base: externalContainerObject, key: 'listenerId' },
  { path: 'spec.sourceConfig.integrationId', base: repoHostObject, key: 'integrationId' },
] as const;

function withId(base: () => TestObject, key: 'listenerId' | 'integrationId', id: string): TestObject {
  const object = base();
  (object.spec.sourceConfig as Record<string, unknown>)[key] = id;
  return object;
}

const message = (path: string) =>
  `${path} must be a UUID (RFC 9562: 8-4-4-4-12 hexadecimal digits, version 1 to 8, variant 8, 9, a or b)`;

describe.each(FIELDS)('$path: one rule for the CRD and the operator', ({ path, base, key }) => {
  it.each(IDS)('%s (%s): accepted=%s by every judge', (_, id, accepted) => {
    const object = withId(base, key, id);
    const crd = celViolations(specSchema, object.spec, undefined, 'spec').map((v) => v.message);
    expect(crd).toEqual(accepted ? [] : [message(path)]);

    const admission = prepareCustomResource({
      schema: emulatorSchema,
      object: structuredClone(object) as unknown as Record<string, unknown>,
      fieldValidation: 'Strict',
    });
    expect(admission.causes.length === 0).toBe(accepted);
    // What `kubectl apply` prints names the field (the format check's words, or the rule's).
    expect(admission.causes.some((cause) => cause.field === path)).toBe(!accepted);

    const operator = validateAgentDeploymentSpec(object.spec);
    if (accepted) expect(operator).toEqual([]);
    else expect(operator).toContainEqual({ field: path, message: message(path) });
    expect(operator.every((problem) => problem.field === path)).toBe(true);

    // The control-plane client checks the request before sending it, with the same rule.
    const spec = AgentDeploymentSpec.safeParse(withId(base, key, INTEGRATION_ID).spec);
    if (!spec.success) throw spec.error;
    const request = toWireCreateRequest({ metadata: object.metadata, spec: spec.data }, []);
    const wireKey = key === 'listenerId' ? 'listener_id' : 'integration_id';
    const sent = DeploymentCreateRequest.safeParse({
      ...request,
      source_config: { ...request.source_config, [wireKey]: id },
    });
    expect(sent.success).toBe(accepted);
  });
});

it('the CRD rule tests the very expression zod tests', () => {
  for (const { path } of FIELDS) {
    let node: JsonSchema | undefined = specSchema;
    for (const key of path.split('.').slice(1)) node = node?.properties?.[key];
    expect(node?.['x-kubernetes-validations']).toEqual([
      { rule: `self.matches('${UUID_REGEX.source}')`, message: message(path) },
    ]);
    expect(node?.maxLength).toBe(36);
  }
});
