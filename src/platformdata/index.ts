// The platform data API client: trace and example deletion, and their verification.
export * from './routes.js';
export * from './models.js';
export * from './platform-data-client.js';
export * from './id-batches.js';
export * from './batch-submission.js';
export * from './trace-deletion.js';
export * from './example-deletion.js';
export * from './trace-verification.js';
export * from './match-count.js';
export * from './metadata-filter.js';
