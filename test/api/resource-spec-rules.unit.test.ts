// The CRD's ResourceSpec rules (minimum not above maximum, limit not below request, one
// name per container of the pod) refuse exactly what the control plane refuses. The control
// plane's own check (the emulator's, on the spec after rounding and defaults) is the judge:
// a few hundred specs drawn from values around every edge (rounding halves, defaulted queue
// fields, a limit left out) get the same verdict from the CRD's CEL, from the emulator's
// admission and from the operator's own spec check.
import { describe, expect, it } from 'vitest';
import {
  RESOURCE_SPEC_RULES,
  toWireResourceSpec,
  type ResourceSpec,
} from '../../src/api/agentdeployment/index.js';
import { agentDeploymentOpenApiSchema } from '../../src/api/crd/agentdeployment-crd.js';
import type { JsonSchema } from '../../src/api/crd/structural-schema.js';
import { validateAgentDeploymentSpec } from '../../src/api/validation/validate-spec.js';
import { applyResourceSpecDefaults } from '../../src/sim/controlplane/resource-spec-defaults.js';
import { checkResourceSpecRules } from '../../src/sim/controlplane/resource-spec-rules.js';
import type { ResourceSpec as EmulatorResourceSpec } from '../../src/sim/controlplane/schemas/index.js';
import { prepareCustomResource, type JSONSchemaProps } from '../../src/sim/kube/validation/index.js';
import { celViolations } from './support/cel-harness.js';
import { LISTENER_ID, type TestObject } from './support/fixtures.js';

const schema = agentDeploymentOpenApiSchema();
const specSchema = schema.properties?.spec as JsonSchema;
const emulatorSchema = schema as unknown as JSONSchemaProps;
const RULE_MESSAGES = new Set(RESOURCE_SPEC_RULES.map((rule) => rule.message));

function objectWith(resourceSpec: ResourceSpec): TestObject {
  return {
    apiVersion: 'agentplatform.io/v1alpha1',
    kind: 'AgentDeployment',
    metadata: { name: 'sized', namespace: 'team-a' },
    spec: {
      source: 'external_container',
      sourceConfig: { listenerId: LISTENER_ID, resourceSpec },
      sourceRevisionConfig: { imageUri: 'registry.example.com/agent:1' },
    },
  };
}

/** The messages of the resource rules the CRD's CEL refuses `spec` with. */
function crdRefusals(resourceSpec: ResourceSpec): string[] {
  return celViolations(specSchema, objectWith(resourceSpec).spec, undefined, 'spec')
    .map((v) => v.message)
    .filter((message) => RULE_MESSAGES.has(message));
}

function admissionCauses(resourceSpec: ResourceSpec): string[] {
  const result = prepareCustomResource({
    schema: emulatorSchema,
    object: structuredClone(objectWith(resourceSpec)) as unknown as Record<string, unknown>,
    fieldValidation: 'Strict',
  });
  return result.causes.map((c) => `${c.field}: ${c.message}`);
}

function operatorRefusals(resourceSpec: ResourceSpec): string[] {
  return validateAgentDeploymentSpec(objectWith(resourceSpec).spec).map((p) => p.message);
}

/** The control plane's verdict: its refusal, or undefined when it stores the spec. */
function controlPlaneRefusal(resourceSpec: ResourceSpec): string | undefined {
  const wire = toWireResourceSpec(resourceSpec) as unknown as EmulatorResourceSpec;
  try {
    checkResourceSpecRules(applyResourceSpecDefaults(wire));
    return undefined;
  } catch (error) {
    return String((error as { body?: { detail?: string } }).body?.detail ?? error);
  }
}

/** A small deterministic generator (no dependency on Math.random), so a failure reproduces. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const CPU_REQUESTS = [0.1, 0.14, 0.15, 0.25, 0.95, 1, 1.04, 1.05, 1.06, 2, 8];
const CPU_LIMITS = [0.1, 0.15, 0.2, 1, 1.04, 1.05, 1.1, 2, 4, 16];
const SCALES = [0, 1, 2, 3, 5];
const MEMORY = [128, 256, 512, 1024];

function drawSpec(next: () => number): ResourceSpec {
  const pick = <T>(values: readonly T[]): T | undefined =>
    next() < 0.45 ? undefined : values[Math.floor(next() * values.length)];
  const spec: Record<string, unknown> = {
    minScale: pick(SCALES),
    maxScale: pick(SCALES),
    queueMinScale: pick(SCALES),
    queueMaxScale: pick(SCALES),
    cpu: pick(CPU_REQUESTS),
    cpuLimit: pick(CPU_LIMITS),
    queueCpu: pick(CPU_REQUESTS),
    queueCpuLimit: pick(CPU_LIMITS),
    memoryMb: pick(MEMORY),
    memoryLimitMb: pick(MEMORY),
    queueMemoryMb: pick(MEMORY),
    queueMemoryLimitMb: pick(MEMORY),
    cacheCpu: pick(CPU_REQUESTS),
    cacheCpuLimit: pick(CPU_LIMITS),
    dbCpu: pick(CPU_REQUESTS),
    dbCpuLimit: pick(CPU_LIMITS),
    dbMemoryMb: pick(MEMORY),
    dbMemoryLimitMb: pick(MEMORY),
  };
  if (next() < 0.2) spec.initContainers = [{ name: next() < 0.5 ? 'proxy' : 'migrate', image: 'i:1' }];
  if (next() < 0.2) spec.sidecars = [{ name: 'proxy', image: 'p:1' }];
  return Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined)) as ResourceSpec;
}

describe('the CRD refuses exactly the resource specs the control plane refuses', () => {
  const next = generator(27);
  const specs = Array.from({ length: 400 }, () => drawSpec(next));

  it('draws both verdicts often enough to mean something', () => {
    const refused = specs.filter((spec) => controlPlaneRefusal(spec) !== undefined).length;
    expect(refused).toBeGreaterThan(100);
    expect(specs.length - refused).toBeGreaterThan(100);
  });

  it.each(specs.map((spec, i) => [i, JSON.stringify(spec), spec] as const))('spec %i: %s', (_, __, spec) => {
    const refusedByControlPlane = controlPlaneRefusal(spec) !== undefined;
    const crd = crdRefusals(spec);
    expect(crd.length > 0, `CRD: ${crd.join('; ')}`).toBe(refusedByControlPlane);
    expect(operatorRefusals(spec)).toEqual(crd);
    expect(admissionCauses(spec).length > 0).toBe(refusedByControlPlane);
  });
});

describe('the rules name the field the user wrote', () => {
  const prefix = 'spec.sourceConfig.resourceSpec';
  it.each([
    [
      'minScale 3, maxScale 1',
      { minScale: 3, maxScale: 1 },
      `${prefix}.minScale`,
      `${prefix}.minScale must not exceed ${prefix}.maxScale`,
    ],
    [
      'cpu 2, cpuLimit 1',
      { cpu: 2, cpuLimit: 1 },
      `${prefix}.cpuLimit`,
      `${prefix}.cpuLimit must not be below ${prefix}.cpu, both rounded to one decimal place`,
    ],
    [
      'memoryMb 1024, memoryLimitMb 512',
      { memoryMb: 1024, memoryLimitMb: 512 },
      `${prefix}.memoryLimitMb`,
      `${prefix}.memoryLimitMb must not be below ${prefix}.memoryMb`,
    ],
    [
      'queueMinScale 5 above the maxScale 3 that queueMaxScale defaults to',
      { maxScale: 3, queueMinScale: 5 },
      `${prefix}.queueMinScale`,
      `${prefix}.queueMinScale (default: minScale) must not exceed ${prefix}.queueMaxScale (default: maxScale)`,
    ],
    [
      'queueCpuLimit 1 below the cpu 2 that queueCpu defaults to',
      { cpu: 2, queueCpuLimit: 1 },
      `${prefix}.queueCpuLimit`,
      `${prefix}.queueCpuLimit must not be below ${prefix}.queueCpu (default: cpu), both rounded to one decimal place`,
    ],
    [
      'an init container and a sidecar of one name',
      { initContainers: [{ name: 'proxy', image: 'a:1' }], sidecars: [{ name: 'proxy', image: 'b:1' }] },
      `${prefix}.sidecars`,
      `${prefix}.initContainers[].name and ${prefix}.sidecars[].name must differ: they name containers of one pod`,
    ],
  ] as const)('%s', (_, resourceSpec, field, message) => {
    expect(controlPlaneRefusal(resourceSpec as ResourceSpec)).toBeDefined();
    expect(crdRefusals(resourceSpec as ResourceSpec)).toEqual([message]);
    expect(admissionCauses(resourceSpec as ResourceSpec)).toEqual([
      `${field}: Invalid value: "object": ${message}`,
    ]);
  });

  it.each([
    ['cpu 1.04 with cpuLimit 1: both are 1.0 once rounded', { cpu: 1.04, cpuLimit: 1 }],
    ['a limit left out (it defaults to twice the request)', { cpu: 8, memoryMb: 4096 }],
    ['queueMinScale above minScale, below maxScale', { minScale: 1, maxScale: 5, queueMinScale: 4 }],
  ] as const)('accepts %s, as the control plane does', (_, resourceSpec) => {
    expect(controlPlaneRefusal(resourceSpec as ResourceSpec)).toBeUndefined();
    expect(crdRefusals(resourceSpec as ResourceSpec)).toEqual([]);
    expect(admissionCauses(resourceSpec as ResourceSpec)).toEqual([]);
  });
});
