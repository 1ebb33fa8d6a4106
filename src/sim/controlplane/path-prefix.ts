// A self-hosted install serves the whole API under a path prefix of its base URL
// (https://platform.example.com/control-plane/v2/deployments). The emulator does the same
// when asked: requests under the prefix are served with it stripped; anything else is 404,
// as a reverse proxy in front of such an install answers.
import type { RequestHandler } from '../http/request-guard.js';

/** '' or '/a/b': starts with '/', no trailing '/', no query or fragment characters. */
export function pathPrefixProblem(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix)) {
    return `pathPrefix must look like /segment[/segment...] without a trailing slash (got "${prefix}")`;
  }
  return undefined;
}

export function withPathPrefix(handler: RequestHandler, prefix: string): RequestHandler {
  if (prefix === '') return handler;
  return (req, res) => {
    const target = req.url ?? '/';
    const rest = target.slice(prefix.length);
    if (!target.startsWith(prefix) || !(rest === '' || rest.startsWith('/') || rest.startsWith('?'))) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Not Found' }));
      return;
    }
    req.url = rest.startsWith('/') ? rest : `/${rest}`;
    return handler(req, res);
  };
}
