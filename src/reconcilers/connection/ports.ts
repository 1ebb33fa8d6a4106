// What the connection reconciler needs from Kubernetes: the kit's object port (tests substitute their own).
import type { PlatformConnectionObject } from '../../api/connection/index.js';
import type { ObjectPort } from '../../runtime/reconcile/object-port.js';

export type ConnectionKubePort = ObjectPort<PlatformConnectionObject>;
