// The pieces of one running emulator, shared by the request pipeline and the admin API.
import type { Logger } from '../../observability/logger.js';
import type { AdminGuard } from './admin-guard.js';
import type { KeyRegistry } from '../http/api-keys.js';
import type { FaultRegistry } from '../http/faults.js';
import type { FixedWindowRateLimiter } from '../http/rate-limiter.js';
import type { StatsCounter } from '../http/stats.js';
import type { EmulatorStore } from './store.js';

export interface EmulatorRuntime {
  store: EmulatorStore;
  keys: KeyRegistry;
  limiter: FixedWindowRateLimiter;
  faults: FaultRegistry;
  stats: StatsCounter;
  /** Whether a 429 from the rate limiter carries Retry-After. */
  settings: { retryAfter: boolean };
  clock: () => number;
  /** Who may call anything under /_emulator/. */
  adminGuard: AdminGuard;
  /** Where errors no handler expected are reported (silent unless the embedder gives one). */
  logger: Logger;
  /** What the admin reset empties besides the control plane (the platform data API's stores). */
  onReset: (() => void)[];
  /** Told of each API request as it arrives (the embedder's; see ControlPlaneEmulatorOptions). */
  onApiRequest?: (call: ApiCall) => void;
}

/** One API request as it arrived: when (the emulator's clock), what, and who said they sent it. */
export interface ApiCall {
  atMs: number;
  method: string;
  /** The route template (`/v2/deployments/{deployment_id}`), or `(unmatched)`. */
  route: string;
  /** The User-Agent header as sent; '' when absent. */
  userAgent: string;
}
