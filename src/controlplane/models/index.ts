// The wire models of the control plane, shared by the emulator and the client.
export * from './kubernetes-shapes.js';
export * from './resource-spec.js';
export * from './deployment.js';
export * from './revision.js';
export * from './listener.js';
export * from './errors.js';
export * from './page.js';
