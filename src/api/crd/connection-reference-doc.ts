// The generated field reference of docs/connection-reference.md: the ClusterPlatformConnection
// schema, which is the PlatformConnection's plus namespaceSelector, so one table serves both.
import { CLUSTER_PLATFORM_CONNECTION } from '../connection/index.js';
import { connectionOpenApiSchema } from './connection-crd.js';
import { renderFieldReference, withFieldReference } from './reference-doc.js';

export const CONNECTION_REFERENCE_DOC_PATH = 'docs/connection-reference.md';

export function withConnectionFieldReference(document: string): string {
  return withFieldReference(
    document,
    renderFieldReference(connectionOpenApiSchema(CLUSTER_PLATFORM_CONNECTION)),
    CONNECTION_REFERENCE_DOC_PATH,
  );
}
