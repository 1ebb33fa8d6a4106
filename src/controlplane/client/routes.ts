// The control plane's routes as templates (the form metrics and the emulator's stats use:
// never an id in a label) and the one place that fills them in.

export const ROUTES = {
  deployments: '/v2/deployments',
  deployment: '/v2/deployments/{deployment_id}',
  revisions: '/v2/deployments/{deployment_id}/revisions',
  revision: '/v2/deployments/{deployment_id}/revisions/{revision_id}',
  listeners: '/v2/listeners',
  integrations: '/v1/integrations/repo_host/install',
} as const;

export type RouteTemplate = (typeof ROUTES)[keyof typeof ROUTES];

/** Fills `{name}` placeholders; every value is checked non-empty and percent-encoded. */
export function fillRoute(template: RouteTemplate, params: Record<string, string> = {}): string {
  return template.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new Error(`${name} must be a non-empty string`);
    return encodeURIComponent(value);
  });
}

export type QueryValue = string | number | boolean | undefined;

/** `?a=1&b=x` from the defined entries, in the given order ('' when none). */
export function queryString(params: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.append(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
