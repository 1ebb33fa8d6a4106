// The finalizer of a controller, one implementation for every kind: whether the object
// carries it, and the guarded writes that add or remove it (guarded by resourceVersion in the
// port, so that another controller's finalizer added meanwhile is never lost).
import type { ObjectPort, PortObject, WriteOutcome } from './object-port.js';

export function hasFinalizer(object: PortObject, finalizer: string): boolean {
  return (object.metadata.finalizers ?? []).includes(finalizer);
}

export function addFinalizer<T extends PortObject>(
  port: ObjectPort<T>,
  object: T,
  finalizer: string,
  signal: AbortSignal,
): Promise<WriteOutcome<T>> {
  if (hasFinalizer(object, finalizer)) return Promise.resolve({ ok: true, value: object });
  return port.patchFinalizers(object, [...(object.metadata.finalizers ?? []), finalizer], signal);
}

export function removeFinalizer<T extends PortObject>(
  port: ObjectPort<T>,
  object: T,
  finalizer: string,
  signal: AbortSignal,
): Promise<WriteOutcome<T>> {
  if (!hasFinalizer(object, finalizer)) return Promise.resolve({ ok: true, value: object });
  const remaining = (object.metadata.finalizers ?? []).filter((name) => name !== finalizer);
  return port.patchFinalizers(object, remaining, signal);
}
