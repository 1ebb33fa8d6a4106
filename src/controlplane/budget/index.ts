// The rate budget: published limits as data, fixed-window-safe adaptive token buckets.
export * from './rate-table.js';
export * from './route-matcher.js';
export * from './fixed-window-shape.js';
export * from './adaptive-bucket.js';
export * from './rate-limit-headers.js';
export * from './credential-fingerprint.js';
export * from './rate-budget.js';
export * from './clock.js';
export * from './headroom.js';
