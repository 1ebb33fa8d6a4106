// What /readyz and /healthz report. Ready: every cache has synced and the manager is running
// (as leader or as a warm standby, both of which can serve). Live: the event loop is not
// blocked and no reflector is stuck; a failing liveness probe restarts the pod, which is the
// right cure for both.
import type { ReflectorHealth } from '../reflector/reflector.js';

export type ManagerRole = 'leader' | 'standby' | 'single' | 'stopped';

export interface ControllerHealth {
  name: string;
  running: boolean;
  queueDepth: number;
  processing: number;
}

export interface HealthSnapshot {
  ready: boolean;
  live: boolean;
  role: ManagerRole;
  /** The lease holder last seen, when leader election is on. */
  leader?: string;
  /** Event-loop delay measured by the last heartbeat (ms). */
  eventLoopLagMs: number;
  informers: ReflectorHealth[];
  controllers: ControllerHealth[];
  /** Human-readable reasons for not ready / not live. */
  problems: string[];
}
