// Dispatches one resource request (GET/POST/PUT/PATCH/DELETE on a collection, an object or
// its status) to the reads, the writer or a watch.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest, invalid, methodNotAllowed, notFound, unsupportedMediaType } from '../api-error.js';
import type { ApiContext } from '../api-context.js';
import { checkValueShape } from '../body-limits.js';
import { parseJsonBody, readBody, sendJson, warningHeaders } from '../http-io.js';
import { isJsonObject, cloneJson, nowTimestamp, objectKey, type KubeObject } from '../kube-object.js';
import { entriesOf, managerFromUserAgent } from '../managed-fields.js';
import { checkApplyOptions, parseApplyBody, serverSideApply } from '../server-side-apply.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from '../patch.js';
import { decodeProtobufBody, decodeProtobufDeleteOptions } from '../protobuf-body.js';
import { assertNoPrototypeKeys } from '../prototype-guard.js';
import { parseRequestOptions, type RequestOptions } from '../request-options.js';
import { checkPathSegmentName } from '../request-path.js';
import type { ResourceType } from '../resource-type.js';
import { apiVersionOf } from '../resource-type.js';
import type { DeleteOptions, ObjectWriter, WriteResult } from '../writes.js';
import type { FaultState } from '../faults.js';
import { getObject, listObjects, selectionPredicate } from './reads.js';
import { startWatch, type WatchSession, type WatchSettings } from './watch.js';

export interface ResourceRequest {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

/** Protobuf map keys (labels, annotations, data) are user keys too; its nesting is checked like any body's. */
function guardedProtobuf<T>(value: T): T {
  checkValueShape(value, 'the request body');
  assertNoPrototypeKeys(value);
  return value;
}

function isProtobuf(request: IncomingMessage): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim() === 'application/vnd.kubernetes.protobuf';
}

/** A JSON body, or a protobuf one as kubectl's imperative commands send. */
function decodeBody(request: IncomingMessage, raw: Buffer): unknown {
  if (isProtobuf(request)) return guardedProtobuf(decodeProtobufBody(raw));
  return parseJsonBody(raw);
}

/** DeleteOptions as JSON, or as protobuf: helm's storage driver deletes its release Secrets that way. */
function decodeDeleteOptionsBody(request: IncomingMessage, raw: Buffer): unknown {
  if (isProtobuf(request)) return guardedProtobuf(decodeProtobufDeleteOptions(raw));
  return parseJsonBody(raw);
}

function asKubeObject(value: unknown): KubeObject {
  if (!isJsonObject(value)) throw badRequest('the body of the request must be a JSON object');
  const metadata = value['metadata'] ?? {};
  if (!isJsonObject(metadata)) throw badRequest('metadata: must be an object');
  return { ...value, metadata } as KubeObject;
}

export class ResourceHandler {
  constructor(
    private readonly ctx: ApiContext,
    private readonly writer: ObjectWriter,
    private readonly faults: FaultState,
    private readonly bookmarkIntervalMs: number,
    private readonly sessions: Set<WatchSession>,
    private readonly reportWatchFailure: (error: unknown) => void,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse, target: ResourceRequest, params: URLSearchParams): Promise<void> {
    const { group, version, namespace, resource, name, subresource } = target;
    const type = this.ctx.registry.find(group, version, resource);
    if (!type) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', { causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }] });
    if (subresource !== undefined && (subresource !== 'status' || !type.statusSubresource)) {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    if (name !== undefined) checkPathSegmentName(name);
    if (type.namespaced && namespace === undefined && name !== undefined) throw notFound(type.group, type.plural, name);
    const effectiveNamespace = type.namespaced ? namespace : undefined;
    const parsed = parseRequestOptions(params, request.headers.accept);
    // Every write names who made it (for managedFields); the server falls back to the User-Agent.
    const options = { ...parsed, fieldManager: parsed.fieldManager ?? managerFromUserAgent(request.headers['user-agent']) };
    const method = request.method ?? 'GET';
    const status = subresource === 'status' ? ('status' as const) : undefined;

    if (method === 'GET') {
      if (options.watch) {
        startWatch(this.ctx, response, type, version, effectiveNamespace, name, options, this.takeWatchSettings(), this.sessions);
        return;
      }
      const body = name === undefined ? listObjects(this.ctx, type, version, effectiveNamespace, options) : getObject(this.ctx, type, version, effectiveNamespace, name, options);
      return sendJson(response, 200, body, {}, options.table ? `application/json;as=Table;v=${options.table.slice(12)};g=meta.k8s.io` : 'application/json');
    }
    const raw = await readBody(request);
    if (method === 'POST' && name === undefined) {
      const body = asKubeObject(decodeBody(request, raw));
      return this.respond(response, 201, this.writer.create(type, version, effectiveNamespace, body, options), type);
    }
    if (name === undefined) {
      if (method === 'DELETE') return this.deleteCollection(request, response, type, version, effectiveNamespace, options, raw);
      throw methodNotAllowed();
    }
    if (method === 'PUT') {
      const body = asKubeObject(decodeBody(request, raw));
      const result = this.writer.update(type, version, effectiveNamespace, name, body, {
        ...options,
        ...(status ? { subresource: status } : {}),
        requireResourceVersion: type.custom !== undefined,
      });
      return this.respond(response, 200, result, type);
    }
    if (method === 'PATCH') return this.patch(request, response, type, version, effectiveNamespace, name, options, raw, status, parsed.fieldManager);
    if (method === 'DELETE' && !status) {
      const result = this.writer.delete(type, version, effectiveNamespace, name, this.deleteOptions(request, raw, options));
      return this.respondDeleted(response, type, result);
    }
    throw methodNotAllowed();
  }

  /** Expire-watches faults are consumed one watch request at a time. */
  private takeWatchSettings(): WatchSettings {
    return { bookmarkIntervalMs: this.bookmarkIntervalMs, forceExpired: this.faults.takeExpiredWatch(), report: this.reportWatchFailure };
  }

  private respond(response: ServerResponse, code: number, result: WriteResult, _type: ResourceType): void {
    const headers: Record<string, string[]> = result.warnings.length > 0 ? { Warning: warningHeaders(result.warnings) } : {};
    sendJson(response, result.removed ? 200 : code, result.object, headers);
  }

  private respondDeleted(response: ServerResponse, type: ResourceType, result: WriteResult): void {
    // A completed delete answers a Success Status naming what went (custom resources too, as the
    // real server's store does); one that waits on finalizers answers the object as it now is.
    if (!result.removed || type.storageKey === '/namespaces') return sendJson(response, 200, result.object);
    sendJson(response, 200, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: result.object.metadata.name, group: type.group || undefined, kind: type.plural, uid: result.object.metadata.uid },
    });
  }

  private deleteOptions(request: IncomingMessage, raw: Buffer, options: RequestOptions): DeleteOptions {
    const result: DeleteOptions = { dryRun: options.dryRun };
    if (raw.length === 0 || !raw.toString('utf8').trim()) return result;
    const body = decodeDeleteOptionsBody(request, raw);
    if (!isJsonObject(body)) throw badRequest('DeleteOptions must be a JSON object');
    if (Array.isArray(body['dryRun']) && body['dryRun'].includes('All')) result.dryRun = true;
    const preconditions = body['preconditions'];
    if (isJsonObject(preconditions)) {
      result.preconditions = {};
      if (typeof preconditions['uid'] === 'string') result.preconditions.uid = preconditions['uid'];
      if (typeof preconditions['resourceVersion'] === 'string') result.preconditions.resourceVersion = preconditions['resourceVersion'];
    }
    return result;
  }

  private deleteCollection(request: IncomingMessage, response: ServerResponse, type: ResourceType, version: string, namespace: string | undefined, options: RequestOptions, raw: Buffer): void {
    const predicate = selectionPredicate(type, options);
    const store = this.ctx.resourceStore(type);
    const keys = [...(type.namespaced && namespace ? store.keys(namespace) : store.keys())];
    const items: KubeObject[] = [];
    const deleteOptions = this.deleteOptions(request, raw, options);
    for (const key of keys) {
      const stored = store.get(key);
      if (!stored) continue;
      const served = this.ctx.toServed(type, version, stored);
      if (predicate && !predicate(served)) continue;
      items.push(this.writer.delete(type, version, served.metadata.namespace, served.metadata.name ?? '', deleteOptions).object);
    }
    sendJson(response, 200, { kind: type.listKind, apiVersion: apiVersionOf(type.group, version), metadata: { resourceVersion: String(this.ctx.store.currentRevision) }, items });
  }

  /** Server-side apply: creates the object when it does not exist, as the real server does. */
  private apply(
    response: ServerResponse,
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    options: RequestOptions,
    raw: Buffer,
    status: 'status' | undefined,
    requestedManager: string | undefined,
  ): void {
    const manager = checkApplyOptions(requestedManager);
    const configuration = parseApplyBody(raw);
    if (configuration.metadata.name !== undefined && configuration.metadata.name !== name) {
      throw badRequest(`the name of the object (${String(configuration.metadata.name)}) does not match the name on the URL (${name})`);
    }
    // An apply to the status of a missing object is a 404, as any status write is.
    const stored = status ? this.ctx.requireStored(type, namespace, name) : this.ctx.resourceStore(type).get(objectKey(namespace, name));
    const current = stored ? this.ctx.toServed(type, version, stored) : undefined;
    const { object } = serverSideApply({
      current,
      configuration,
      manager,
      force: options.force ?? false,
      apiVersion: apiVersionOf(type.group, version),
      time: nowTimestamp(this.ctx.clock),
      statusIsSubresource: type.statusSubresource,
      ...(status ? { subresource: status } : {}),
    });
    const managedFields = entriesOf(object);
    const writeOptions = { ...options, fieldManager: manager, managedFields, ...(status ? { subresource: status } : {}) };
    if (!current) {
      const created = this.writer.create(type, version, namespace, { ...object, metadata: { ...object.metadata, name } }, writeOptions);
      return this.respond(response, 201, created, type);
    }
    const named = configuration.metadata.resourceVersion;
    const resourceVersion = typeof named === 'string' ? named : current.metadata.resourceVersion;
    const updated = this.writer.update(type, version, namespace, name, { ...object, metadata: { ...object.metadata, resourceVersion } }, writeOptions);
    this.respond(response, 200, updated, type);
  }

  private patch(
    request: IncomingMessage,
    response: ServerResponse,
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    options: RequestOptions,
    raw: Buffer,
    status: 'status' | undefined,
    requestedManager: string | undefined,
  ): void {
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (contentType === 'application/apply-patch+yaml') return this.apply(response, type, version, namespace, name, options, raw, status, requestedManager);
    if (options.force !== undefined) {
      throw invalid('meta.k8s.io', 'PatchOptions', '', [
        { reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' },
      ]);
    }
    if (contentType === 'application/strategic-merge-patch+json' && type.custom) {
      throw unsupportedMediaType(contentType, PATCH_TYPES.filter((t) => !t.startsWith('application/strategic')));
    }
    if (!PATCH_TYPES.includes(contentType)) throw unsupportedMediaType(contentType, PATCH_TYPES);
    const patch = parseJsonBody(raw);
    const current = this.ctx.toServed(type, version, this.ctx.requireStored(type, namespace, name));
    let patched: unknown;
    if (contentType === 'application/json-patch+json') patched = applyJsonPatch(current, patch);
    // applyMergePatch copies what it changes and shares the rest with the stored object: a
    // custom resource's admission copies the whole result before pruning or defaulting it
    // (validation/index.ts), so only built-in types, whose rules may edit it, need a copy first.
    else if (contentType === 'application/merge-patch+json') patched = applyMergePatch(type.custom ? current : cloneJson(current), patch);
    else patched = applyStrategicMergePatch(cloneJson(current), patch);
    const body = asKubeObject(patched);
    // A patch writes over the version it read unless it names one itself (then it is a precondition).
    const named = isJsonObject(patch) && isJsonObject(patch['metadata']) ? patch['metadata']['resourceVersion'] : undefined;
    const resourceVersion = typeof named === 'string' ? named : current.metadata.resourceVersion;
    const result = this.writer.update(type, version, namespace, name, { ...body, metadata: { ...body.metadata, resourceVersion } }, {
      ...options,
      ...(status ? { subresource: status } : {}),
    });
    this.respond(response, 200, result, type);
  }
}
