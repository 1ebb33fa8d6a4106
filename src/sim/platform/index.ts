// The platform data API emulator's entry: what the control-plane emulator, which serves it on
// its own address, needs to start one per region.
export { DEFAULT_TRACE_DELETE_DELAY_MS, PlatformDataApi, type PlatformHost } from './platform-api.js';
export type { PlatformRegion } from './rate-rows.js';
export type { ProjectTrace, TracingProjectSessions } from './tracing-project-sessions.js';
