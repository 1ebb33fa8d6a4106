// Percent escapes in a request path that do not decode (`%ZZ`, a lone `%`, a truncated or
// overlong UTF-8 sequence, an encoded lone surrogate) are the client's error on every route
// of the listener. decodeURIComponent throws a URIError on them, which must never reach a
// route table unanswered.
import { detailError, type HttpError } from './http-error.js';

export const MALFORMED_PATH_DETAIL = 'Malformed percent-encoding in the request path';

function malformedPathError(): HttpError {
  return detailError(400, MALFORMED_PATH_DETAIL);
}

/** A path segment decoded; a 400 HttpError when its escapes do not decode. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw malformedPathError();
  }
}

/** Whether the path part of a request target (query excluded) decodes. */
export function pathDecodes(target: string): boolean {
  const queryStart = target.indexOf('?');
  try {
    decodeURIComponent(queryStart < 0 ? target : target.slice(0, queryStart));
    return true;
  } catch {
    return false;
  }
}
