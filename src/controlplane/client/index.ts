// The control-plane client: the only way the code reaches the control plane.
export * from './config.js';
export * from './errors.js';
export * from './metrics.js';
export * from './retry-policy.js';
export * from './routes.js';
export * from './classify.js';
export * from './http-transport.js';
export * from './request-executor.js';
export * from './control-plane-client.js';
