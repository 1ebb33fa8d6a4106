// The deletion resources: TraceDeletion and ExampleDeletion.
export * from './names.js';
export * from './common.js';
export * from './trace-deletion.js';
export * from './example-deletion.js';
