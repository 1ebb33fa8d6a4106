// What the connection reconciler needs from Kubernetes, as a port: tests substitute their own.
import type { ConnectionStatus, PlatformConnectionObject } from '../../api/connection/index.js';

export type WriteOutcome = { ok: true } | { ok: false; conflict: boolean; message: string };

export interface ConnectionKubePort {
  /** From the cache; undefined when it is gone. */
  get(key: string): PlatformConnectionObject | undefined;
  patchFinalizers(
    object: PlatformConnectionObject,
    finalizers: string[],
    signal: AbortSignal,
  ): Promise<WriteOutcome>;
  patchStatus(
    object: PlatformConnectionObject,
    status: ConnectionStatus,
    signal: AbortSignal,
  ): Promise<WriteOutcome>;
  event(object: PlatformConnectionObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}
