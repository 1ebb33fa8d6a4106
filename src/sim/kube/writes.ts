// Create, update (PUT and the result of a PATCH), and delete with the real server's rules:
// metadata the server owns, generation, status subresource, optimistic concurrency,
// finalizers and deletionTimestamp, namespace existence, no-op writes that change nothing.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  internalError,
  invalid,
  notFound,
  type StatusCause,
} from './api-error.js';
import type { ApiContext } from './api-context.js';
import { checkValueShape } from './body-limits.js';
import { forbiddenInTerminatingNamespace } from './builtin-rules.js';
import { jsonEqual, nowTimestamp, objectKey, type KubeObject, type ObjectMeta } from './kube-object.js';
import {
  entriesOf,
  isManagedFieldsEntry,
  limitToObject,
  normalizeManagedFieldsEntry,
  trackUpdate,
  type ManagedFieldsEntry,
} from './managed-fields.js';
import { apiVersionOf, type ResourceType } from './resource-type.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** Who writes: takes ownership of the fields it changes. Absent: managedFields stay as they are. */
  fieldManager?: string;
  /** Ownership already worked out by server-side apply. */
  managedFields?: ManagedFieldsEntry[];
}

export interface WriteResult {
  /** The object in the served version. */
  object: KubeObject;
  warnings: string[];
  /** True when the object is gone for good (the last finalizer was removed). */
  removed?: boolean;
}

export interface DeleteOptions {
  dryRun: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function generatedSuffix(): string {
  return [...randomBytes(5)].map((b) => GENERATE_ALPHABET[b % GENERATE_ALPHABET.length]).join('');
}

/** The part of an object whose change bumps metadata.generation. */
function generationRelevant(type: ResourceType, object: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, status, ...rest } = object;
  return type.statusSubresource ? rest : { ...rest, status };
}

function isHeld(type: ResourceType, object: KubeObject): boolean {
  if ((object.metadata.finalizers ?? []).length > 0) return true;
  if (type.storageKey === '/namespaces') {
    const spec = object['spec'] as { finalizers?: unknown[] } | undefined;
    return (spec?.finalizers ?? []).length > 0;
  }
  return false;
}

export class ObjectWriter {
  constructor(private readonly ctx: ApiContext) {}

  private nameOf(type: ResourceType, body: KubeObject, namespace: string | undefined): string {
    const meta = body.metadata;
    let name = meta.name ?? '';
    if (!name && meta.generateName) name = `${meta.generateName}${generatedSuffix()}`;
    if (!name) {
      throw invalid(type.group, type.kind, '', [
        { reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' },
      ]);
    }
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
      throw invalid(type.group, type.kind, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.name',
          message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        },
      ]);
    }
    if (type.namespaced && !namespace) throw badRequest('the server could not find the requested resource');
    return name;
  }

  private checkTypeMeta(type: ResourceType, version: string, body: KubeObject): void {
    const expected = type.group ? `${type.group}/${version}` : version;
    if (body.apiVersion !== undefined && body.apiVersion !== expected) {
      throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${expected})`);
    }
    if (body.kind !== undefined && body.kind !== type.kind) {
      throw badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${type.kind})`);
    }
  }

  private checkNamespace(type: ResourceType, namespace: string | undefined, body: KubeObject): void {
    if (!type.namespaced) return;
    const declared = body.metadata.namespace;
    if (declared && declared !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  /** Schema validation, defaulting and pruning for custom resources; built-in rules otherwise. */
  private applyRules(
    type: ResourceType,
    version: string,
    object: KubeObject,
    old: KubeObject | undefined,
    options: WriteOptions,
    subresource: 'status' | undefined,
  ): { object: KubeObject; warnings: string[] } {
    if (type.custom) {
      const schema = type.custom.schemas.get(version);
      if (!schema) return { object, warnings: [] };
      const result = this.ctx.validator.prepareCustomResource({
        schema,
        object,
        ...(old ? { oldObject: old } : {}),
        fieldValidation: options.fieldValidation,
        ...(subresource ? { subresource } : {}),
      });
      if (result.strictError !== undefined) {
        // Decoding fails before anything is validated, as in the real server's strict decoder.
        throw badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: ${result.strictError}`);
      }
      if (result.causes.length > 0) throw invalid(type.group, type.kind, object.metadata.name ?? '', result.causes);
      const prepared = result.object as KubeObject;
      return { object: { ...prepared, metadata: prepared.metadata ?? object.metadata }, warnings: result.warnings };
    }
    return { object: type.prepare ? type.prepare(object, old) : object, warnings: [] };
  }

  create(type: ResourceType, version: string, namespace: string | undefined, body: KubeObject, options: WriteOptions): WriteResult {
    // Bodies were checked as they were decoded; this holds for whatever else builds an object
    // to store (a patch, an apply), since everything after it recurses over the object.
    checkValueShape(body, 'the object');
    this.checkTypeMeta(type, version, body);
    this.checkNamespace(type, namespace, body);
    const name = this.nameOf(type, body, namespace);
    if (body.metadata.resourceVersion) {
      // The real storage layer refuses this with a 500, not a validation error.
      throw internalError('resourceVersion should not be set on objects to be created');
    }
    if (type.namespaced && namespace) {
      const ns = this.ctx.namespaceObject(namespace);
      if (!ns) throw notFound('', 'namespaces', namespace);
      if (ns.metadata.deletionTimestamp) throw forbiddenInTerminatingNamespace(namespace);
    }
    const store = this.ctx.resourceStore(type);
    const key = objectKey(type.namespaced ? namespace : undefined, name);
    if (store.get(key)) throw alreadyExists(type.group, type.plural, name);

    const metadata: ObjectMeta = { ...body.metadata, name, uid: randomUUID(), creationTimestamp: nowTimestamp(this.ctx.clock) };
    if (type.namespaced) metadata.namespace = namespace;
    else delete metadata.namespace;
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    delete metadata.managedFields;
    delete metadata.resourceVersion;
    if (type.tracksGeneration || type.custom) metadata.generation = 1;
    else delete metadata.generation;
    let candidate: KubeObject = { ...body, apiVersion: type.group ? `${type.group}/${version}` : version, kind: type.kind, metadata };
    if (type.statusSubresource) delete candidate['status'];
    const ruled = this.applyRules(type, version, candidate, undefined, options, undefined);
    candidate = this.withManagedFields(type, version, undefined, ruled.object, options, undefined);
    if (options.dryRun) return { object: candidate, warnings: ruled.warnings };

    const revision = this.ctx.store.nextRevision();
    const served: KubeObject = { ...candidate, metadata: { ...candidate.metadata, resourceVersion: String(revision) } };
    store.put(key, this.ctx.toStorage(type, served), revision);
    for (const hook of this.ctx.writeHooks) hook(type, served, undefined);
    return { object: served, warnings: ruled.warnings };
  }

  /**
   * Replaces an object with `body` (already the full desired object: PUT, or a patch
   * applied to the current object). `requireResourceVersion` is the custom-resource rule
   * that a PUT must name the version it replaces.
   */
  update(
    type: ResourceType,
    version: string,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    options: WriteOptions & { subresource?: 'status'; requireResourceVersion?: boolean },
  ): WriteResult {
    checkValueShape(body, 'the object');
    this.checkTypeMeta(type, version, body);
    this.checkNamespace(type, namespace, body);
    if (body.metadata.name !== undefined && body.metadata.name !== name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    const stored = this.ctx.requireStored(type, namespace, name);
    const current = this.ctx.toServed(type, version, stored);
    const requested = body.metadata.resourceVersion;
    if (requested) {
      if (requested !== current.metadata.resourceVersion) throw conflict(type.group, type.plural, name);
    } else if (options.requireResourceVersion) {
      throw invalid(type.group, type.kind, name, [
        { reason: 'FieldValueInvalid', field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' },
      ]);
    }

    let candidate: KubeObject;
    if (options.subresource === 'status') {
      candidate = { ...current };
      if (body['status'] === undefined) delete candidate['status'];
      else candidate['status'] = body['status'];
    } else {
      const metadata: ObjectMeta = {
        ...body.metadata,
        name,
        uid: current.metadata.uid,
        creationTimestamp: current.metadata.creationTimestamp,
        resourceVersion: current.metadata.resourceVersion,
      };
      if (type.namespaced) metadata.namespace = namespace;
      else delete metadata.namespace;
      for (const owned of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
        if (current.metadata[owned] === undefined) delete metadata[owned];
        else Object.assign(metadata, { [owned]: current.metadata[owned] });
      }
      delete metadata.managedFields;
      const given = Array.isArray(body.metadata.managedFields)
        ? body.metadata.managedFields.filter(isManagedFieldsEntry).map(normalizeManagedFieldsEntry)
        : [];
      // A client may rewrite ownership itself (kubectl does when it moves an object from
      // client-side to server-side apply); the server keeps what it sent. Compared in the
      // server's form, so the same entries sent with other time notation are no rewrite.
      if (options.managedFields === undefined && given.length > 0 && !jsonEqual(given, current.metadata.managedFields)) {
        options = { ...options, managedFields: given };
      }
      candidate = { ...body, apiVersion: current.apiVersion, kind: type.kind, metadata };
      if (type.statusSubresource) {
        if (current['status'] === undefined) delete candidate['status'];
        else candidate['status'] = current['status'];
      }
      this.checkNoNewFinalizers(type, current, candidate);
    }

    const ruled = this.applyRules(type, version, candidate, current, options, options.subresource);
    candidate = this.withManagedFields(type, version, current, ruled.object, options, options.subresource);
    if ((type.tracksGeneration || type.custom) && options.subresource !== 'status') {
      const before = current.metadata.generation ?? 1;
      const changed = !jsonEqual(generationRelevant(type, candidate), generationRelevant(type, current));
      candidate = { ...candidate, metadata: { ...candidate.metadata, generation: changed ? before + 1 : before } };
    }
    return this.commit(type, version, current, candidate, options.dryRun, ruled.warnings);
  }

  /** Sets metadata.managedFields after a write: the apply's, the writer's changes, or as they were. */
  private withManagedFields(
    type: ResourceType,
    version: string,
    before: KubeObject | undefined,
    candidate: KubeObject,
    options: WriteOptions,
    subresource: 'status' | undefined,
  ): KubeObject {
    const entries =
      (options.managedFields && limitToObject(options.managedFields, candidate)) ??
      (options.fieldManager === undefined
        ? entriesOf(before)
        : trackUpdate(before, candidate, {
            manager: options.fieldManager,
            apiVersion: apiVersionOf(type.group, version),
            time: nowTimestamp(this.ctx.clock),
            statusIsSubresource: type.statusSubresource,
            ...(subresource ? { subresource } : {}),
          }));
    const metadata: ObjectMeta = { ...candidate.metadata };
    if (entries.length > 0) metadata.managedFields = entries;
    else delete metadata.managedFields;
    return { ...candidate, metadata };
  }

  private checkNoNewFinalizers(type: ResourceType, current: KubeObject, candidate: KubeObject): void {
    if (!current.metadata.deletionTimestamp) return;
    const before = new Set(current.metadata.finalizers ?? []);
    const added = (candidate.metadata.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length === 0) return;
    const cause: StatusCause = {
      reason: 'FieldValueForbidden',
      field: 'metadata.finalizers',
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
    };
    throw invalid(type.group, type.kind, current.metadata.name ?? '', [cause]);
  }

  /** Stores `candidate` over `current` (both served), or removes it when deletion is complete. */
  commit(type: ResourceType, version: string, current: KubeObject, candidate: KubeObject, dryRun: boolean, warnings: string[] = []): WriteResult {
    const name = current.metadata.name ?? '';
    const key = objectKey(type.namespaced ? current.metadata.namespace : undefined, name);
    const finishing = candidate.metadata.deletionTimestamp !== undefined && !isHeld(type, candidate);
    if (!finishing && jsonEqual(candidate, current)) return { object: current, warnings };
    if (dryRun) return { object: candidate, warnings };
    const revision = this.ctx.store.nextRevision();
    const served: KubeObject = { ...candidate, metadata: { ...candidate.metadata, resourceVersion: String(revision) } };
    const store = this.ctx.resourceStore(type);
    if (finishing) {
      store.remove(key, this.ctx.toStorage(type, served), revision);
      for (const hook of this.ctx.removalHooks) hook(type, served);
      return { object: served, warnings, removed: true };
    }
    store.put(key, this.ctx.toStorage(type, served), revision);
    for (const hook of this.ctx.writeHooks) hook(type, served, current);
    void version;
    return { object: served, warnings };
  }

  /**
   * DELETE: objects held by finalizers get deletionTimestamp (once) and stay; others are
   * removed. Returns the object as it is after the call.
   */
  delete(type: ResourceType, version: string, namespace: string | undefined, name: string, options: DeleteOptions): WriteResult {
    const current = this.ctx.toServed(type, version, this.ctx.requireStored(type, namespace, name));
    const preconditions = options.preconditions;
    if (preconditions?.uid && preconditions.uid !== current.metadata.uid) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${type.group ? `${type.plural}.${type.group}` : type.plural} "${name}": Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${current.metadata.uid ?? ''}`,
        { name, group: type.group || undefined, kind: type.plural },
      );
    }
    if (preconditions?.resourceVersion && preconditions.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(type.group, type.plural, name);
    }
    if (current.metadata.deletionTimestamp) return { object: current, warnings: [] };
    const held = isHeld(type, current);
    const metadata: ObjectMeta = { ...current.metadata, deletionTimestamp: nowTimestamp(this.ctx.clock), deletionGracePeriodSeconds: 0 };
    if (held && metadata.generation !== undefined) metadata.generation += 1;
    let candidate: KubeObject = { ...current, metadata };
    if (type.storageKey === '/namespaces') {
      candidate = { ...candidate, status: { ...(candidate['status'] as object | undefined), phase: 'Terminating' } };
    }
    if (!held) return this.commit(type, version, current, candidate, options.dryRun);
    const result = this.commit(type, version, current, candidate, options.dryRun);
    if (!options.dryRun) for (const hook of this.ctx.deletionHooks) hook(type, result.object);
    return result;
  }
}
