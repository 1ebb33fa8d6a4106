// The control-plane emulator validates with schemas of its own (src/sim/control-plane schemas),
// transcribed from the API documents apart from the operator's client models
// (src/controlplane/models). Were they one copy, a wrong field, enum value or required-ness
// would be agreed to by both sides and no operator-against-emulator test could catch it; as two
// transcriptions, they must agree here, field by field, or one of them is wrong.
//
// Each pair is compared as JSON Schema (zod's own rendering): property names, types, which
// properties are required and which accept null, enum values, formats (uuid, date-time),
// patterns and numeric bounds. The one intended difference is stated and checked below.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as client from '../../src/controlplane/models/index.js';
import * as emulator from '../../src/sim/controlplane/schemas/index.js';
import * as emulatorErrors from '../../src/sim/http/validation-error.js';

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

const PAIRS: [string, z.ZodType, z.ZodType][] = [
  ['ValidationError', emulatorErrors.ValidationErrorSchema, client.ValidationError],
  ['HTTPValidationError', emulatorErrors.HttpValidationErrorSchema, client.HTTPValidationError],
  ['DetailError', emulatorErrors.DetailErrorSchema, client.DetailError],
  ['LocalObjectReference', emulator.LocalObjectReference, client.LocalObjectReference],
  ['Volume', emulator.Volume, client.Volume],
  ['VolumeMount', emulator.VolumeMount, client.VolumeMount],
  ['EnvVar', emulator.EnvVar, client.EnvVar],
  ['ResourceRequirements', emulator.ResourceRequirements, client.ResourceRequirements],
  ['Container', emulator.Container, client.Container],
  ['ResourceSpec', emulator.ResourceSpec, client.ResourceSpec],
  ['Source', emulator.Source, client.Source],
  ['DeploymentStatus', emulator.DeploymentStatus, client.DeploymentStatus],
  ['ListenerConfig', emulator.ListenerConfig, client.ListenerConfig],
  ['SourceConfig', emulator.SourceConfig, client.SourceConfig],
  ['SourceConfigRequest', emulator.SourceConfig, client.SourceConfigRequest],
  ['SourceRevisionConfigRequest', emulator.SourceRevisionConfigRequest, client.SourceRevisionConfigRequest],
  ['SourceRevisionConfig', emulator.SourceRevisionConfig, client.SourceRevisionConfig],
  ['Secret', emulator.Secret, client.Secret],
  ['DeploymentCreateRequest', emulator.DeploymentCreateRequest, client.DeploymentCreateRequest],
  ['DeploymentPatchRequest', emulator.DeploymentPatchRequest, client.DeploymentPatchRequest],
  ['Deployment', emulator.Deployment, client.Deployment],
  ['RevisionStatus', emulator.RevisionStatus, client.RevisionStatus],
  ['Revision', emulator.Revision, client.Revision],
  ['Integration', emulator.Integration, client.Integration],
  ['Page<Deployment>', emulator.Page(emulator.Deployment), client.Page(client.Deployment)],
];

describe('the emulator and the client transcribed the control-plane API alike', () => {
  it.each(PAIRS)(
    '%s: same fields, types, enums, required-ness, formats and bounds',
    (_name, ours, theirs) => {
      expect(jsonSchema(ours)).toEqual(jsonSchema(theirs));
    },
  );

  it('same constants: enums, list limits, the CPU fields, the tag prefix, the compute types', () => {
    expect(emulator.SOURCES).toEqual(client.SOURCES);
    expect(emulator.DEPLOYMENT_TYPES).toEqual(client.DEPLOYMENT_TYPES);
    expect(emulator.DEPLOYMENT_STATUSES).toEqual(client.DEPLOYMENT_STATUSES);
    expect(emulator.REVISION_STATUSES).toEqual(client.REVISION_STATUSES);
    expect(emulator.FAILED_REVISION_STATUSES).toEqual(client.FAILED_REVISION_STATUSES);
    expect(emulator.IMAGE_PULL_POLICIES).toEqual(client.IMAGE_PULL_POLICIES);
    expect(emulator.SIDECAR_RESTART_POLICIES).toEqual(client.SIDECAR_RESTART_POLICIES);
    expect(emulator.CPU_FIELDS).toEqual(client.CPU_FIELDS);
    expect(emulator.TAG_REF_PREFIX).toBe(client.TAG_REF_PREFIX);
    expect(emulator.LIST_LIMIT).toEqual(client.LIST_LIMIT);
    expect(emulator.COMPUTE_TYPES).toEqual(client.COMPUTE_TYPES);
  });

  it('Listener: the client accepts any compute_type, the emulator sends only the ones it knows', () => {
    const ours = jsonSchema(emulator.Listener) as { properties: Record<string, unknown> };
    expect(ours.properties['compute_type']).toEqual({ type: 'string', enum: [...emulator.COMPUTE_TYPES] });
    const widened = { ...ours, properties: { ...ours.properties, compute_type: { type: 'string' } } };
    expect(widened).toEqual(jsonSchema(client.Listener));
  });
});

describe('the comparison is not blind', () => {
  // What a wrong transcription looks like, one kind of mistake each; every one must differ.
  const base = emulator.VolumeMount;
  it.each([
    ['a renamed field', base.omit({ readOnly: true }).extend({ read_only: z.boolean().nullish() })],
    ['an optional field made required', base.extend({ subPath: z.string() })],
    ['a required field made optional', base.extend({ mountPath: z.string().nullish() })],
    ['a field no longer nullable', base.extend({ subPath: z.string().optional() })],
    ['another type', base.extend({ readOnly: z.string().nullish() })],
  ])('%s is a disagreement', (_mistake, wrong) => {
    expect(jsonSchema(wrong)).not.toEqual(jsonSchema(client.VolumeMount));
  });

  it('an enum value missing or a bound changed is a disagreement', () => {
    expect(jsonSchema(z.enum(['Always', 'Never']))).not.toEqual(
      jsonSchema(z.enum(client.IMAGE_PULL_POLICIES)),
    );
    const cpu = emulator.ResourceSpec.extend({ cpu: z.number().min(0.1).max(16).nullish() });
    expect(jsonSchema(cpu)).not.toEqual(jsonSchema(client.ResourceSpec));
  });
});
