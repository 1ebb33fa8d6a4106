// `agent-operator connection check`: from a workstation, with the user's own kubeconfig and
// permissions, does what the operator's probe does (the key Secret, one authenticated read,
// /ok on the platform API and the private domain) and compares with what the operator last
// reported. One line per check; the key itself is never printed.
import {
  CLUSTER_PLATFORM_CONNECTION,
  PLATFORM_CONNECTION,
  type ConnectionKind,
  type PlatformConnectionObject,
} from '../api/connection/index.js';
import { resolveCredentials } from '../connections/credentials.js';
import { connectionEndpoints } from '../connections/endpoints.js';
import { describeConnection } from '../connections/reference.js';
import { ControlPlaneClient } from '../controlplane/client/index.js';
import { GROUP, VERSION } from '../api/agentdeployment/names.js';
import { probeConnection, type HttpGet, type ProbeOutcome } from '../reconcilers/connection/probe.js';
import type { SecretSource } from '../reconcilers/agentdeployment/secrets.js';
import type { KubeClient } from '../runtime/kube/client.js';
import { KubeApiError } from '../runtime/kube/errors.js';
import type { KubeObject } from '../runtime/kube/objects.js';

export interface CheckLine {
  ok: boolean;
  text: string;
}

export interface CheckTarget {
  kind: ConnectionKind;
  /** For a PlatformConnection. */
  namespace: string;
  name: string;
  /** Where a ClusterPlatformConnection's key Secret lives. */
  operatorNamespace: string;
}

export async function checkConnection(
  kube: KubeClient,
  target: CheckTarget,
  options: { get?: HttpGet; timeoutMs?: number } = {},
): Promise<CheckLine[]> {
  const cluster = target.kind === 'ClusterPlatformConnection';
  const names = cluster ? CLUSTER_PLATFORM_CONNECTION : PLATFORM_CONNECTION;
  const label = describeConnection(target.kind, cluster ? undefined : target.namespace, target.name);
  let connection: PlatformConnectionObject;
  try {
    connection = await kube.get<KubeObject & PlatformConnectionObject>(
      { group: GROUP, version: VERSION, plural: names.plural, namespaced: !cluster },
      cluster ? undefined : target.namespace,
      target.name,
    );
  } catch (error) {
    return [{ ok: false, text: `${label}: ${kubeProblem(error)}` }];
  }
  const endpoints = connectionEndpoints(connection.spec);
  const lines: CheckLine[] = [
    {
      ok: true,
      text: `${label}: control plane ${endpoints.controlPlaneUrl}, platform API ${endpoints.platformApiUrl}${endpoints.privateOkUrl === undefined ? '' : `, private domain ${connection.spec.privateDomain ?? ''}`}`,
    },
  ];

  const secretNamespace = cluster ? target.operatorNamespace : target.namespace;
  const ref = connection.spec.apiKeySecretRef ?? connection.spec.bearerTokenSecretRef;
  let secret: SecretSource | undefined;
  let secretProblem: string | undefined;
  if (ref !== undefined) {
    try {
      secret = await kube.get<KubeObject & SecretSource>(
        { group: '', version: 'v1', plural: 'secrets' },
        secretNamespace,
        ref.name,
      );
    } catch (error) {
      secretProblem = `key Secret "${secretNamespace}/${ref.name}": ${kubeProblem(error)}`;
    }
  }
  const credential = resolveCredentials(connection.spec, secretNamespace, () => secret);
  if (secretProblem !== undefined || !credential.ok) {
    lines.push({ ok: false, text: secretProblem ?? (credential.ok ? '' : credential.message) });
    lines.push(...reported(connection));
    return lines;
  }
  lines.push({
    ok: true,
    text: `key Secret "${secretNamespace}/${ref?.name ?? ''}" has key "${ref?.key ?? ''}"`,
  });

  const client = new ControlPlaneClient({
    baseUrl: endpoints.controlPlaneUrl,
    region: endpoints.region,
    credentials: credential.credentials,
    retry: { maxAttempts: 1 },
    deadlineMs: options.timeoutMs ?? 10_000,
  });
  try {
    const outcome = await probeConnection({
      client,
      endpoints,
      signal: new AbortController().signal,
      ...(options.get === undefined ? {} : { get: options.get }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    lines.push(...probeLines(outcome));
  } finally {
    await client.close();
  }
  lines.push(...reported(connection));
  return lines;
}

function probeLines(outcome: ProbeOutcome): CheckLine[] {
  const auth = outcome.auth;
  const lines: CheckLine[] = [
    auth.kind === 'ok'
      ? { ok: true, text: 'the key authenticates (GET /v2/listeners?limit=1)' }
      : auth.kind === 'refused'
        ? {
            ok: false,
            text:
              auth.status === 401 || auth.status === 403
                ? `the control plane refuses the key (HTTP ${auth.status}): wrong or revoked key, or a tenantId it cannot see`
                : `the control plane refused the check (HTTP ${auth.status}): wrong URL or path prefix? ${auth.message}`,
          }
        : { ok: false, text: `the control plane could not be asked: ${auth.message}` },
    outcome.platform.ok
      ? { ok: true, text: 'the platform API answers /ok' }
      : { ok: false, text: `the platform API is unreachable: ${outcome.platform.message}` },
  ];
  if (outcome.privateDomain !== undefined) {
    lines.push(
      outcome.privateDomain.ok
        ? { ok: true, text: 'the private domain answers /ok' }
        : { ok: false, text: `the private domain is unreachable: ${outcome.privateDomain.message}` },
    );
  }
  return lines;
}

/** What the operator last wrote in status, so that a difference (its network, not yours) shows. */
function reported(connection: PlatformConnectionObject): CheckLine[] {
  const conditions = connection.status?.conditions ?? [];
  if (conditions.length === 0)
    return [
      {
        ok: false,
        text: 'the operator has not reported on this connection (is it running and watching this namespace?)',
      },
    ];
  return conditions.map((condition) => ({
    ok: condition.status === 'True',
    text: `the operator reports ${condition.type}=${condition.status} (${condition.reason}): ${condition.message}`,
  }));
}

function kubeProblem(error: unknown): string {
  if (error instanceof KubeApiError) {
    if (error.statusCode === 404) return 'not found';
    if (error.statusCode === 403) return 'forbidden: your kubeconfig may not read it';
    return `${error.statusCode} ${error.reason}`;
  }
  return error instanceof Error ? error.message : String(error);
}
