// The request target of an HTTP request, split into path and query. Most clients send the
// origin form (`/api/v1/...?watch=1`), which is split by hand: resolving it against a base
// URL would read `//host/...` as another authority and drop the path, and would fold `..`
// segments that the real server sees as they are. An absolute-form target (`http://host/...`,
// as a proxy sends) is served by its path, as Go's server does; anything else that does not
// parse is the client's error.
import { badRequest } from './api-error.js';

export interface RequestTarget {
  pathname: string;
  searchParams: URLSearchParams;
}

export function parseRequestTarget(target: string): RequestTarget {
  if (target.startsWith('/')) {
    const queryStart = target.indexOf('?');
    if (queryStart < 0) return { pathname: target, searchParams: new URLSearchParams() };
    return {
      pathname: target.slice(0, queryStart),
      searchParams: new URLSearchParams(target.slice(queryStart + 1)),
    };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw badRequest('the request target is neither a path nor an absolute URL');
  }
  return { pathname: url.pathname, searchParams: url.searchParams };
}
