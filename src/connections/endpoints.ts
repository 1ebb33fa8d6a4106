// Where a connection's two APIs are: a hosted region's fixed addresses, or the self-hosted
// URLs of the spec (a path prefix allowed). The region also picks the column of the rate
// table; a self-hosted install publishes no limits, so it is paced by the US column unless
// the connection's rateLimits say otherwise.
import type { Region } from '../controlplane/budget/rate-table.js';
import { REGION_BASE_URLS } from '../controlplane/client/config.js';
import type { ConnectionSpec } from '../api/connection/index.js';

/** The platform API's hosted addresses, one per region (`/ok` is its connectivity check). */
export const PLATFORM_API_URLS: Readonly<Record<Region, string>> = {
  us: 'https://api.smith.langchain.com',
  eu: 'https://eu.api.smith.langchain.com',
};

export interface ConnectionEndpoints {
  controlPlaneUrl: string;
  platformApiUrl: string;
  /** `/ok` through the private network connection, when one is configured. */
  privateOkUrl?: string;
  region: Region;
  /** What the REGION/URL column shows: the region, or the self-hosted control-plane URL. */
  display: string;
}

const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+)(:\d+)?$/;

export function connectionEndpoints(spec: ConnectionSpec): ConnectionEndpoints {
  const region: Region = spec.region ?? 'us';
  const privateOkUrl =
    spec.privateDomain === undefined
      ? undefined
      : `${LOOPBACK_HOST.test(spec.privateDomain) ? 'http' : 'https'}://${spec.privateDomain}/ok`;
  const selfHosted = spec.controlPlaneUrl !== undefined && spec.platformApiUrl !== undefined;
  return {
    controlPlaneUrl: selfHosted ? trimSlash(spec.controlPlaneUrl ?? '') : REGION_BASE_URLS[region],
    platformApiUrl: selfHosted ? trimSlash(spec.platformApiUrl ?? '') : PLATFORM_API_URLS[region],
    ...(privateOkUrl === undefined ? {} : { privateOkUrl }),
    region,
    display: selfHosted ? trimSlash(spec.controlPlaneUrl ?? '') : region,
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
