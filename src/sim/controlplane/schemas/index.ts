// The control-plane emulator's own wire schemas, transcribed from the API documents apart from
// the operator's client models (src/controlplane/models), so that a mistake in one is caught by
// the other: test/emulator-schemas/transcriptions.unit.test.ts compares them field by field.
export * from './kubernetes-shapes.js';
export * from './resource-spec.js';
export * from './deployment.js';
export * from './revision.js';
export * from './catalog.js';
