// The AgentDeployment API: names, zod schemas (the single source of truth), inferred types,
// and the mapping to and from the control plane's wire models.
export * from './names.js';
export * from './cel.js';
export * from './kubernetes-shapes.js';
export * from './resource-spec.js';
export * from './resource-spec-rules.js';
export * from './uuid.js';
export * from './smoke-test-spec.js';
export * from './export-spec.js';
export * from './spec.js';
export * from './status.js';
export * from './resource.js';
export * from './wire-mapping.js';
