// Route templates such as `/v2/deployments/{deployment_id}`: matching a path yields the
// template (the name used in stats and fault rules), the path parameters, and the handler
// for the method, or tells apart "no such route" (404) from "wrong method" (405). A parameter
// whose percent escapes do not decode is a 400 HttpError, never a URIError.
import { decodePathSegment } from './path-decoding.js';

interface CompiledRoute<H> {
  template: string;
  segments: { literal?: string; param?: string }[];
  handlers: Map<string, H>;
}

export type RouteMatch<H> =
  | { kind: 'found'; template: string; params: Record<string, string>; handler: H }
  | { kind: 'method-not-allowed'; template: string; allowed: string[] }
  | { kind: 'not-found' };

export class Router<H> {
  private readonly routes: CompiledRoute<H>[] = [];

  add(method: string, template: string, handler: H): this {
    let route = this.routes.find((r) => r.template === template);
    if (!route) {
      const segments = template
        .split('/')
        .slice(1)
        .map((part) =>
          part.startsWith('{') && part.endsWith('}') ? { param: part.slice(1, -1) } : { literal: part },
        );
      route = { template, segments, handlers: new Map() };
      this.routes.push(route);
    }
    route.handlers.set(method, handler);
    return this;
  }

  match(method: string, path: string): RouteMatch<H> {
    const parts = path.split('/').slice(1);
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      const handler = route.handlers.get(method);
      if (handler === undefined) {
        return { kind: 'method-not-allowed', template: route.template, allowed: [...route.handlers.keys()] };
      }
      return { kind: 'found', template: route.template, params, handler };
    }
    return { kind: 'not-found' };
  }
}

function matchSegments(
  segments: CompiledRoute<unknown>['segments'],
  parts: string[],
): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const part = parts[i];
    if (segment === undefined || part === undefined) return undefined;
    if (segment.literal !== undefined) {
      if (segment.literal !== part) return undefined;
    } else if (segment.param !== undefined) {
      if (part === '') return undefined;
      params[segment.param] = decodePathSegment(part);
    }
  }
  return params;
}
