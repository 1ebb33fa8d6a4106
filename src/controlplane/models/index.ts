// The wire models of the control plane, as the operator's client checks them. The emulator has a
// transcription of its own (src/sim/controlplane/schemas); test/emulator-schemas compares them.
export * from './kubernetes-shapes.js';
export * from './resource-spec.js';
export * from './deployment.js';
export * from './revision.js';
export * from './listener.js';
export * from './errors.js';
export * from './page.js';
