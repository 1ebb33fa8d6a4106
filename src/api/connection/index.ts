// The connection API: PlatformConnection and ClusterPlatformConnection (names, zod schemas,
// inferred types).
export * from './names.js';
export * from './spec.js';
export * from './status.js';
export * from './resource.js';
