// Errors as the real API server shapes them: a meta/v1 Status with reason, details and
// code. Handlers throw ApiError; the server turns it into the response.
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details) body.details = this.details;
    return body;
  }
}

/** "widgets.example.com" or "configmaps" for the core group, as the server names a resource. */
export function qualifiedResource(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

export function notFound(group: string, plural: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(group, plural)} "${name}" not found`, {
    name,
    group: group || undefined,
    kind: plural,
  });
}

export function alreadyExists(group: string, plural: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(group, plural)} "${name}" already exists`, {
    name,
    group: group || undefined,
    kind: plural,
  });
}

export function conflict(group: string, plural: string, name: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(group, plural)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: group || undefined, kind: plural },
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** 422 Invalid: `Kind.group "name" is invalid: <field>: <message>` with one cause per field error. */
export function invalid(group: string, kind: string, name: string, causes: StatusCause[]): ApiError {
  const texts = causes.map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? '')));
  const aggregate = texts.length === 1 ? (texts[0] ?? '') : `[${texts.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${aggregate}`, {
    name,
    group: group || undefined,
    kind,
    causes,
  });
}

export function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

export function unsupportedMediaType(_contentType: string, supported: string[]): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`,
  );
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

export function internalError(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}
