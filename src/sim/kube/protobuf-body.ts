// kubectl's imperative commands (`create namespace|configmap|secret|serviceaccount`) send
// bodies as application/vnd.kubernetes.protobuf, and so does helm when it deletes its release
// record (a DeleteOptions body on DELETE). This decodes that envelope ("k8s\0" +
// runtime.Unknown) and the few kinds those commands send into JSON objects; any other kind
// is a 415 asking for JSON. A body that is not valid protobuf is the client's
// error: a 400 BadRequest, as the real server's decoder answers.
import { ApiError, badRequest } from './api-error.js';
import type { JsonObject } from './kube-object.js';

type FieldType = 'string' | 'bytes' | 'int64' | 'bool' | 'time' | 'stringMap' | 'bytesMap' | MessageSchema;

interface FieldSpec {
  name: string;
  type: FieldType;
  repeated?: boolean;
}

type MessageSchema = Record<number, FieldSpec>;

const OWNER_REFERENCE: MessageSchema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};

const OBJECT_META: MessageSchema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int64' },
  8: { name: 'creationTimestamp', type: 'time' },
  9: { name: 'deletionTimestamp', type: 'time' },
  10: { name: 'deletionGracePeriodSeconds', type: 'int64' },
  11: { name: 'labels', type: 'stringMap' },
  12: { name: 'annotations', type: 'stringMap' },
  13: { name: 'ownerReferences', type: OWNER_REFERENCE, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};

const KINDS: Record<string, MessageSchema> = {
  Namespace: {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'spec', type: { 1: { name: 'finalizers', type: 'string', repeated: true } } },
    3: { name: 'status', type: { 1: { name: 'phase', type: 'string' } } },
  },
  ConfigMap: {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'data', type: 'stringMap' },
    3: { name: 'binaryData', type: 'bytesMap' },
    4: { name: 'immutable', type: 'bool' },
  },
  Secret: {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'data', type: 'bytesMap' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'stringMap' },
    5: { name: 'immutable', type: 'bool' },
  },
  ServiceAccount: {
    1: { name: 'metadata', type: OBJECT_META },
    3: { name: 'imagePullSecrets', type: { 1: { name: 'name', type: 'string' } }, repeated: true },
    4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
};

/**
 * meta/v1 DeleteOptions. client-go registers it in every group version, so its envelope names
 * the group version of the resource deleted (v1 for a Secret), or meta.k8s.io/v1.
 */
const DELETE_OPTIONS: MessageSchema = {
  1: { name: 'gracePeriodSeconds', type: 'int64' },
  2: {
    name: 'preconditions',
    type: { 1: { name: 'uid', type: 'string' }, 2: { name: 'resourceVersion', type: 'string' } },
  },
  3: { name: 'orphanDependents', type: 'bool' },
  4: { name: 'propagationPolicy', type: 'string' },
  5: { name: 'dryRun', type: 'string', repeated: true },
};

const UNKNOWN_ENVELOPE: MessageSchema = {
  1: { name: 'typeMeta', type: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } },
  2: { name: 'raw', type: 'bytes' },
};

/** What makes a body undecodable; turned into the 400 at the top. */
class ProtobufError extends Error {}

/** A protobuf varint holds at most 64 bits in 10 bytes; a longer run is malformed (and would make the BigInt ever larger). */
const MAX_VARINT_BYTES = 10;

class Reader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}

  get done(): boolean {
    return this.offset >= this.buffer.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let read = 0; ; read++) {
      if (read === MAX_VARINT_BYTES) throw new ProtobufError('varint longer than 64 bits');
      const byte = this.buffer[this.offset];
      if (byte === undefined) throw new ProtobufError('truncated varint');
      this.offset += 1;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  }

  bytes(): Buffer {
    const length = Number(this.varint());
    const slice = this.buffer.subarray(this.offset, this.offset + length);
    if (slice.length !== length) throw new ProtobufError('truncated field');
    this.offset += length;
    return slice;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.offset += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.offset += 4;
    else throw new ProtobufError(`unsupported wire type ${wireType}`);
  }
}

function decodeMapEntry(buffer: Buffer): [string, Buffer<ArrayBufferLike>] {
  const reader = new Reader(buffer);
  let key = '';
  let value: Buffer<ArrayBufferLike> = Buffer.alloc(0);
  while (!reader.done) {
    const tag = Number(reader.varint());
    if (tag >> 3 === 1 && (tag & 7) === 2) key = reader.bytes().toString('utf8');
    else if (tag >> 3 === 2 && (tag & 7) === 2) value = reader.bytes();
    else reader.skip(tag & 7);
  }
  return [key, value];
}

function decodeTime(buffer: Buffer): string {
  const reader = new Reader(buffer);
  let seconds = 0n;
  while (!reader.done) {
    const tag = Number(reader.varint());
    if (tag >> 3 === 1 && (tag & 7) === 0) seconds = reader.varint();
    else reader.skip(tag & 7);
  }
  const time = new Date(Number(seconds) * 1000);
  if (Number.isNaN(time.getTime())) throw new ProtobufError('a time outside the representable range');
  return time.toISOString().replace('.000Z', 'Z');
}

function decodeMessage(buffer: Buffer, schema: MessageSchema): JsonObject {
  const reader = new Reader(buffer);
  const result: JsonObject = {};
  while (!reader.done) {
    const tag = Number(reader.varint());
    const spec = schema[tag >> 3];
    if (!spec) {
      reader.skip(tag & 7);
      continue;
    }
    let value: unknown;
    if (spec.type === 'int64') value = Number(BigInt.asIntN(64, reader.varint()));
    else if (spec.type === 'bool') value = reader.varint() !== 0n;
    else {
      const bytes = reader.bytes();
      if (spec.type === 'string') {
        value = bytes.toString('utf8');
        // Go's JSON encoding omits empty optional strings; so must the decoded object.
        if (value === '' && !spec.repeated) continue;
      }
      else if (spec.type === 'bytes') value = bytes;
      else if (spec.type === 'time') value = decodeTime(bytes);
      else if (spec.type === 'stringMap' || spec.type === 'bytesMap') {
        const [key, entry] = decodeMapEntry(bytes);
        const map = (result[spec.name] ??= {}) as Record<string, string>;
        map[key] = spec.type === 'stringMap' ? entry.toString('utf8') : entry.toString('base64');
        continue;
      } else value = decodeMessage(bytes, spec.type);
    }
    if (spec.repeated) ((result[spec.name] ??= []) as unknown[]).push(value);
    else result[spec.name] = value;
  }
  return result;
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decodes a Kubernetes protobuf body into the JSON object it stands for. */
export function decodeProtobufBody(body: Buffer): JsonObject {
  return decoding(() => decodeEnvelope(body));
}

/** Decodes the protobuf DeleteOptions body of a DELETE into its JSON form. */
export function decodeProtobufDeleteOptions(body: Buffer): JsonObject {
  return decoding(() => {
    const { typeMeta, raw } = openEnvelope(body);
    if (typeMeta.kind !== 'DeleteOptions') {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of a DELETE must be DeleteOptions (got ${typeMeta.apiVersion ?? ''} ${typeMeta.kind ?? ''})`,
      );
    }
    return { apiVersion: typeMeta.apiVersion ?? 'meta.k8s.io/v1', kind: 'DeleteOptions', ...decodeMessage(raw, DELETE_OPTIONS) };
  });
}

function decoding(decode: () => JsonObject): JsonObject {
  try {
    return decode();
  } catch (error) {
    if (error instanceof ProtobufError) throw badRequest(`the protobuf body could not be decoded: ${error.message}`);
    throw error;
  }
}

function openEnvelope(body: Buffer): { typeMeta: { apiVersion?: string; kind?: string }; raw: Buffer } {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) {
    throw new ApiError(400, 'BadRequest', 'provided protobuf body does not start with the "k8s\\x00" prefix');
  }
  const envelope = decodeMessage(body.subarray(4), UNKNOWN_ENVELOPE);
  const typeMeta = (envelope['typeMeta'] ?? {}) as { apiVersion?: string; kind?: string };
  const raw = envelope['raw'];
  return { typeMeta, raw: Buffer.isBuffer(raw) ? raw : Buffer.alloc(0) };
}

function decodeEnvelope(body: Buffer): JsonObject {
  const { typeMeta, raw } = openEnvelope(body);
  const kind = typeMeta.kind ?? '';
  const schema = KINDS[kind];
  if (!schema || typeMeta.apiVersion !== 'v1') {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the emulator decodes protobuf bodies only for v1 ${Object.keys(KINDS).join(', ')} (got ${typeMeta.apiVersion ?? ''} ${kind}); send application/json`,
    );
  }
  const object = decodeMessage(raw, schema);
  return { apiVersion: 'v1', kind, ...object };
}
