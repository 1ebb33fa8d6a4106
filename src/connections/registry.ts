// Resolves an object's connection reference to a ready-to-use control-plane client, or to a
// refusal that says which problem it is (missing, not Ready, not allowed for the namespace).
// No reference means the default connection: the operator's own flags and Helm values
// (--control-plane-url or --region, the API key, --tenant-id, --rate-limit).
//
// Everything comes from caches (the lookup port); resolving makes no API call. A rotated key
// Secret is seen at the next resolve: the credential is rebuilt from the Secret's current
// value, and the budget is kept when the fingerprint did not change.
import type { ConnectionKind, PlatformConnectionObject } from '../api/connection/index.js';
import type { ControlPlaneClient, Credentials } from '../controlplane/client/index.js';
import type { ControlPlaneClientPool } from './client-pool.js';
import { resolveCredentials, type SecretLookup } from './credentials.js';
import { connectionEndpoints, type ConnectionEndpoints } from './endpoints.js';
import { selectorMatches } from './label-selector.js';
import { describeConnection, type ConnectionRef, type ConnectionRefusal } from './reference.js';
import { parseHostPattern, type HostPattern } from '../egress/host-patterns.js';
import type { AgentTrust } from '../egress/agent-credential.js';
import type { AddressPolicy } from '../egress/address-policy.js';

export type { AgentTrust };

export interface ConnectionLookup {
  connection(
    kind: ConnectionKind,
    namespace: string | undefined,
    name: string,
  ): PlatformConnectionObject | undefined;
  /** Labels of a Namespace object; undefined when it is not (yet) known. */
  namespaceLabels(namespace: string): Readonly<Record<string, string>> | undefined;
  secret: SecretLookup;
}

export interface ResolvedConnection {
  ok: true;
  kind: ConnectionKind | 'Default';
  namespace?: string;
  name: string;
  /** How messages, events and metric labels name it. */
  label: string;
  client: ControlPlaneClient;
  budgetId: string;
  /** Which control plane and tenant the client reaches: deployment names are unique per controlPlaneId. */
  controlPlaneId: string;
  /**
   * The credential itself, for calls made outside the control-plane client with the
   * connection's key (the smoke test's call to the deployed agent). Never log or show it.
   */
  credentials: Credentials;
  /** A named connection's platform data API, for the deletion controllers (the default's is the operator's flags). */
  platform?: { url: string; credentials: Credentials; addressPolicy?: AddressPolicy };
  /** Where this connection's key may be sent besides its own APIs (see AgentTrust). */
  agentTrust: AgentTrust;
  /**
   * Why the namespace that resolved this connection may not delete data through it
   * (TraceDeletion, ExampleDeletion), or undefined when it may. The connection's owner
   * decides: spec.dataDeletionNamespaceSelector, --data-deletion-namespaces.
   */
  dataDeletionRefusal?: string;
}

/** Who may delete data through the default connection: the listed namespaces, or all of them. */
export type NamespaceList = readonly string[] | 'all';

export type ConnectionResolution = ResolvedConnection | ConnectionRefusal;

/** The credential of one connection, ready for a probe; no readiness check. */
export type ConnectionClient =
  | {
      ok: true;
      client: ControlPlaneClient;
      budgetId: string;
      controlPlaneId: string;
      credentials: Credentials;
      endpoints: ConnectionEndpoints;
      credentialVersion: string;
    }
  | { ok: false; message: string; endpoints: ConnectionEndpoints };

export interface ConnectionRegistryOptions {
  lookup: ConnectionLookup;
  pool: ControlPlaneClientPool;
  /** Where ClusterPlatformConnection key Secrets live. */
  operatorNamespace: string;
  defaultConnection: Pick<
    ResolvedConnection,
    'client' | 'budgetId' | 'controlPlaneId' | 'credentials' | 'agentTrust'
  >;
  /** --data-deletion-namespaces: who may delete data through the default connection. */
  defaultDataDeletionNamespaces: NamespaceList;
  /** What a PlatformConnection's tenant-chosen URLs may reach (--allow-private-networks); absent: not checked. */
  tenantAddressPolicy?: AddressPolicy;
}

export class ConnectionRegistry {
  /** Each connection object's trust, parsed once: the cache replaces the object when it changes. */
  private readonly trust = new WeakMap<PlatformConnectionObject, AgentTrust>();
  private readonly defaultResolution: ResolvedConnection;

  constructor(private readonly options: ConnectionRegistryOptions) {
    this.defaultResolution = {
      ok: true,
      kind: 'Default',
      name: 'default',
      label: describeConnection('Default', undefined, 'default'),
      ...options.defaultConnection,
    };
  }

  /** The operator's own connection (its flags and Helm values): what an object without spec.connectionRef uses. */
  defaultConnection(): ResolvedConnection {
    return this.defaultResolution;
  }

  private agentTrustOf(connection: PlatformConnectionObject): AgentTrust {
    let trust = this.trust.get(connection);
    if (trust === undefined) {
      trust = agentTrustOf(connection);
      this.trust.set(connection, trust);
    }
    return trust;
  }

  /**
   * `forDataDeletion`: also say whether `namespace` may delete data through it.
   * `finishing`: the user is being deleted and needs the connection to delete what it owns. A
   * connection that is being deleted waits for its users (finalizer), so it stays usable for
   * them, whatever its Ready says (InUse); otherwise each would wait for the other forever.
   */
  resolve(
    ref: ConnectionRef | undefined,
    namespace: string,
    options: { finishing?: boolean; forDataDeletion?: boolean } = {},
  ): ConnectionResolution {
    if (ref === undefined) {
      // Asked by the deletion controllers only: every reconcile resolves, few delete.
      const refusal =
        options.forDataDeletion === true ? this.defaultDataDeletionProblem(namespace) : undefined;
      return refusal === undefined
        ? this.defaultConnection()
        : { ...this.defaultConnection(), dataDeletionRefusal: refusal };
    }
    const connectionNamespace = ref.kind === 'PlatformConnection' ? namespace : undefined;
    const label = describeConnection(ref.kind, connectionNamespace, ref.name);
    const connection = this.options.lookup.connection(ref.kind, connectionNamespace, ref.name);
    if (connection === undefined) {
      const scope =
        ref.kind === 'PlatformConnection' ? ' (a PlatformConnection serves only its own namespace)' : '';
      return { ok: false, reason: 'ConnectionNotFound', message: `${label} not found${scope}` };
    }
    const denied = this.accessProblem(connection, namespace);
    if (denied !== undefined)
      return { ok: false, reason: 'ConnectionNotAllowed', message: `${label}: ${denied}` };
    const releasing = options.finishing === true && connection.metadata.deletionTimestamp !== undefined;
    const notReady = releasing ? undefined : readinessProblem(connection);
    if (notReady !== undefined)
      return { ok: false, reason: 'ConnectionNotReady', message: `${label} is not Ready: ${notReady}` };
    const resolved = this.clientFor(connection);
    if (!resolved.ok)
      return {
        ok: false,
        reason: 'ConnectionNotReady',
        message: `${label} is not Ready: ${resolved.message}`,
      };
    return {
      ok: true,
      kind: ref.kind,
      ...(connectionNamespace === undefined ? {} : { namespace: connectionNamespace }),
      name: ref.name,
      label,
      client: resolved.client,
      budgetId: resolved.budgetId,
      controlPlaneId: resolved.controlPlaneId,
      credentials: resolved.credentials,
      platform: {
        url: resolved.endpoints.platformApiUrl,
        credentials: resolved.credentials,
        ...this.addressPolicyOf(connection),
      },
      agentTrust: this.agentTrustOf(connection),
      // Asked by the deletion controllers only: every reconcile resolves, few delete.
      ...(options.forDataDeletion === true
        ? dataDeletionRefusalOf(this.dataDeletionProblem(connection, namespace), label)
        : {}),
    };
  }

  /** Why `namespace` may not delete data through the default connection, or undefined. */
  private defaultDataDeletionProblem(namespace: string): string | undefined {
    const allowed = this.options.defaultDataDeletionNamespaces;
    if (allowed === 'all' || allowed.includes(namespace)) return undefined;
    return `the default connection: namespace ${namespace} may not delete data through it (the operator's --data-deletion-namespaces, Helm value dataDeletionNamespaces, allows ${
      allowed.length === 0 ? 'none' : allowed.join(', ')
    })`;
  }

  /**
   * Why `namespace` may not delete data through `connection`, or undefined. A PlatformConnection
   * serves its own namespace with that namespace's own key (its tenant can read the Secret
   * and call the API directly), so it adds nothing to refuse; a ClusterPlatformConnection's
   * key is the platform team's, so its dataDeletionNamespaceSelector must say yes.
   */
  private dataDeletionProblem(connection: PlatformConnectionObject, namespace: string): string | undefined {
    if (connection.kind === 'PlatformConnection') return undefined;
    const selector = connection.spec.dataDeletionNamespaceSelector;
    if (selector === undefined) {
      return `namespace ${namespace} may not delete data through it: it has no dataDeletionNamespaceSelector (absent allows none; {} allows every namespace its namespaceSelector serves)`;
    }
    const labels = this.options.lookup.namespaceLabels(namespace);
    if (labels === undefined) return `namespace ${namespace} is not known yet`;
    return selectorMatches(selector, labels)
      ? undefined
      : `its dataDeletionNamespaceSelector does not match namespace ${namespace}`;
  }

  /** Why objects in `namespace` may not use `connection`, or undefined when they may. */
  accessProblem(connection: PlatformConnectionObject, namespace: string): string | undefined {
    if (connection.kind === 'PlatformConnection') {
      return connection.metadata.namespace === namespace
        ? undefined
        : `serves only namespace ${connection.metadata.namespace ?? ''}, not ${namespace}`;
    }
    const selector = connection.spec.namespaceSelector;
    // Fail closed: a workspace-wide key serves nobody until its owner says whom ({} for all).
    if (selector === undefined)
      return 'it has no namespaceSelector, so it serves no namespace ({} serves all)';
    const labels = this.options.lookup.namespaceLabels(namespace);
    if (labels === undefined) return `namespace ${namespace} is not known yet`;
    return selectorMatches(selector, labels)
      ? undefined
      : `its namespaceSelector does not match namespace ${namespace}`;
  }

  /** The client of a connection's current credential (rebuilt when its Secret changed). */
  clientFor(connection: PlatformConnectionObject): ConnectionClient {
    const endpoints = connectionEndpoints(connection.spec);
    const secretNamespace =
      connection.kind === 'PlatformConnection'
        ? (connection.metadata.namespace ?? '')
        : this.options.operatorNamespace;
    const credential = resolveCredentials(connection.spec, secretNamespace, this.options.lookup.secret);
    const user = this.userOf(connection);
    if (!credential.ok) {
      this.options.pool.release(user);
      return { ok: false, message: credential.message, endpoints };
    }
    const pooled = this.options.pool.clientFor({
      user,
      controlPlaneUrl: endpoints.controlPlaneUrl,
      region: endpoints.region,
      credentials: credential.credentials,
      fingerprint: credential.fingerprint,
      ...(connection.spec.rateLimits?.default === undefined
        ? {}
        : { rateLimits: { default: connection.spec.rateLimits.default } }),
      ...this.addressPolicyOf(connection),
    });
    return {
      ok: true,
      client: pooled.client,
      budgetId: pooled.budgetId,
      controlPlaneId: pooled.controlPlaneId,
      credentials: credential.credentials,
      endpoints,
      credentialVersion: credential.version,
    };
  }

  /** The address policy a connection's own URLs are held to: a PlatformConnection's were chosen by a tenant. */
  addressPolicyOf(connection: Pick<PlatformConnectionObject, 'kind'>): { addressPolicy?: AddressPolicy } {
    const policy = this.options.tenantAddressPolicy;
    return connection.kind === 'PlatformConnection' && policy !== undefined ? { addressPolicy: policy } : {};
  }

  /** Labels of the other connections spending the same budget. */
  sharing(connection: PlatformConnectionObject): string[] {
    return this.options.pool.sharing(this.userOf(connection));
  }

  /** The connection is gone: its client may close when no other connection uses it. */
  forget(connection: Pick<PlatformConnectionObject, 'kind' | 'metadata'>): void {
    this.options.pool.release(this.userOf(connection));
  }

  private userOf(connection: Pick<PlatformConnectionObject, 'kind' | 'metadata'>): string {
    return describeConnection(connection.kind, connection.metadata.namespace, connection.metadata.name);
  }
}

function agentTrustOf(connection: PlatformConnectionObject): AgentTrust {
  const endpoints = connectionEndpoints(connection.spec);
  return {
    platformUrls: [endpoints.controlPlaneUrl, endpoints.platformApiUrl],
    // The CRD admits only well-formed patterns; one that slipped past it is ignored, never widened.
    agentHosts: (connection.spec.agentHosts ?? [])
      .map(parseHostPattern)
      .filter((pattern): pattern is HostPattern => typeof pattern !== 'string'),
    tenantChosenEndpoints: connection.kind === 'PlatformConnection',
  };
}

function dataDeletionRefusalOf(problem: string | undefined, label: string): { dataDeletionRefusal?: string } {
  return problem === undefined ? {} : { dataDeletionRefusal: `${label}: ${problem}` };
}

/** Why a connection's status does not say Ready for its current generation, if so. */
function readinessProblem(connection: PlatformConnectionObject): string | undefined {
  if (connection.metadata.deletionTimestamp !== undefined) return 'it is being deleted';
  const ready = connection.status?.conditions?.find((condition) => condition.type === 'Ready');
  if (ready === undefined) return 'not probed yet';
  if (ready.status !== 'True') return ready.message;
  if (ready.observedGeneration !== undefined && ready.observedGeneration !== connection.metadata.generation) {
    return 'its spec changed and it has not been probed since';
  }
  return undefined;
}
