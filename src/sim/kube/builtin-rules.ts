// The few rules of built-in kinds that clients notice: namespace defaults, secret
// stringData, immutable data, Lease MicroTime precision, events.k8s.io required fields.
// Everything else about built-in kinds is stored without validation.
import { ApiError, badRequest, invalid, type StatusCause } from './api-error.js';
import { jsonEqual, type KubeObject } from './kube-object.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function prepareNamespace(object: KubeObject, old: KubeObject | undefined): KubeObject {
  const name = object.metadata.name ?? '';
  if (!old && (name.length > 63 || !DNS_LABEL.test(name))) {
    throw invalid('', 'Namespace', name, [
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      },
    ]);
  }
  const status = old ? old['status'] : { phase: 'Active' };
  // The "kubernetes" finalizer is the server's: always set on create, kept on update, and
  // only removed by the namespace controller once the namespace is empty.
  const spec = (object['spec'] ?? {}) as { finalizers?: string[] };
  const oldSpec = (old?.['spec'] ?? {}) as { finalizers?: string[] };
  const finalizers = old ? (oldSpec.finalizers ?? []) : [...new Set([...(spec.finalizers ?? []), 'kubernetes'])];
  return {
    ...object,
    metadata: { ...object.metadata, labels: { ...object.metadata.labels, 'kubernetes.io/metadata.name': name } },
    spec: { ...spec, finalizers },
    status,
  };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function checkImmutable(object: KubeObject, old: KubeObject | undefined, kind: string): void {
  if (!old || old['immutable'] !== true) return;
  const changed: StatusCause[] = [];
  for (const field of ['data', 'binaryData', 'immutable']) {
    if (!jsonEqual(old[field], object[field])) {
      changed.push({
        reason: 'FieldValueForbidden',
        field,
        message: 'Forbidden: field is immutable when `immutable` is set',
      });
    }
  }
  if (changed.length > 0) throw invalid('', kind, object.metadata.name ?? '', changed);
}

export function prepareSecret(object: KubeObject, old: KubeObject | undefined): KubeObject {
  const result: KubeObject = { ...object, type: object['type'] || 'Opaque' };
  const data: Record<string, unknown> = { ...(result['data'] as Record<string, unknown> | undefined) };
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'string' || !BASE64.test(value) || value.length % 4 !== 0) {
      // The real server fails while decoding the body, before validation, hence 400.
      throw badRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data in data.${key}`);
    }
  }
  const stringData = result['stringData'];
  if (stringData && typeof stringData === 'object') {
    for (const [key, value] of Object.entries(stringData as Record<string, unknown>)) {
      data[key] = Buffer.from(String(value), 'utf8').toString('base64');
    }
  }
  delete result['stringData'];
  if (Object.keys(data).length > 0 || result['data'] !== undefined) result['data'] = data;
  if (old && old['type'] !== result['type']) {
    throw invalid('', 'Secret', object.metadata.name ?? '', [
      { reason: 'FieldValueInvalid', field: 'type', message: 'Invalid value: field is immutable' },
    ]);
  }
  checkImmutable(result, old, 'Secret');
  return result;
}

export function prepareConfigMap(object: KubeObject, old: KubeObject | undefined): KubeObject {
  checkImmutable(object, old, 'ConfigMap');
  return object;
}

/** metav1.MicroTime only parses exactly six fractional digits (RFC3339Micro). */
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/**
 * A MicroTime as the real server stores and answers it: in UTC, with six fractional digits
 * (`+02:00` becomes `Z`, the clock moved accordingly), whatever offset it was sent with.
 */
export function normalizeMicroTime(value: string): string {
  const fraction = /\.(\d{6})/.exec(value)?.[1] ?? '000000';
  const wholeSeconds = new Date(value.replace(/\.\d+/, '')).toISOString();
  return wholeSeconds.replace(/\.\d{3}Z$/, `.${fraction}Z`);
}

export function prepareLease(object: KubeObject): KubeObject {
  const spec = object['spec'] as Record<string, unknown> | undefined;
  if (!spec) return object;
  const normalized: Record<string, unknown> = { ...spec };
  for (const field of ['acquireTime', 'renewTime']) {
    const value = spec[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !MICRO_TIME.test(value)) {
      throw badRequest(
        `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": spec.${field} must have exactly 6 fractional digits (MicroTime)`,
      );
    }
    normalized[field] = normalizeMicroTime(value);
  }
  return { ...object, spec: normalized };
}

/** events.k8s.io/v1 create rules (ValidateEventCreate) on the events.k8s.io shape. */
export function prepareEventsV1(object: KubeObject, old: KubeObject | undefined): KubeObject {
  if (old) return object;
  const causes: StatusCause[] = [];
  for (const field of ['eventTime', 'reportingController', 'reportingInstance', 'action', 'reason']) {
    if (object[field] === undefined || object[field] === '' || object[field] === null) {
      causes.push({ reason: 'FieldValueRequired', field, message: 'Required value' });
    }
  }
  const type = object['type'];
  if (type !== 'Normal' && type !== 'Warning') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'type',
      message: `Unsupported value: ${JSON.stringify(type ?? '')}: supported values: "Normal", "Warning"`,
    });
  }
  const note = object['note'];
  if (typeof note === 'string' && Buffer.byteLength(note) > 1024) {
    causes.push({ reason: 'FieldValueTooLong', field: 'note', message: 'Too long: may not be more than 1024 bytes' });
  }
  if (causes.length > 0) throw invalid('events.k8s.io', 'Event', object.metadata.name ?? '', causes);
  return object;
}

export function forbiddenInTerminatingNamespace(namespace: string): ApiError {
  return new ApiError(
    403,
    'Forbidden',
    `unable to create new content in namespace ${namespace} because it is being terminated`,
    { causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] },
  );
}
