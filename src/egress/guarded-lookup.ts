// Enforces the address policy where it cannot be dodged: at connect time, on the addresses
// the name resolved to (a tenant's DNS name may resolve to 169.254.169.254, or change its
// answer between a check and the connection). Node's net and tls take a `lookup` function;
// undici passes its `connect` options on to them, so a dispatcher built with this lookup
// refuses a disallowed address before any byte is sent. IP literals skip `lookup` in Node,
// so `urlAddressProblem` checks them (and `localhost`) before a request is made.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent } from 'undici';
import { addressProblem, type AddressPolicy } from './address-policy.js';
import { comparableHost } from './host-patterns.js';

/** The error a refused address fails the connection with. */
export class AddressNotAllowedError extends Error {
  override readonly name = 'AddressNotAllowedError';
  readonly code = 'ERR_ADDRESS_NOT_ALLOWED';
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for net.connect and tls.connect that refuses addresses `policy` does not allow. */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      // One bad answer refuses the name: a name that resolves to an internal address too
      // is not a public agent, and picking the good answer would invite rebinding games.
      for (const { address } of addresses) {
        const problem = addressProblem(address, policy);
        if (problem !== undefined) {
          callback(new AddressNotAllowedError(`${hostname} resolves to ${problem}`), []);
          return;
        }
      }
      if (options.all === true) callback(null, addresses);
      else {
        const [first] = addresses;
        if (first === undefined) callback(new AddressNotAllowedError(`${hostname} has no address`), []);
        else callback(null, first.address, first.family);
      }
    });
  };
}

/** Why the host of `url` is refused before any lookup (an IP literal, localhost), or undefined. */
export function urlAddressProblem(url: URL, policy: AddressPolicy): string | undefined {
  const host = comparableHost(url);
  if (host === 'localhost' || host.endsWith('.localhost')) return addressProblem('127.0.0.1', policy);
  if (isIP(host) === 0) return undefined;
  return addressProblem(host, policy);
}

/** `connect` options for undici dispatchers that apply `policy` to every connection. */
export function guardedConnectOptions(policy: AddressPolicy, timeoutMs = 10_000) {
  return { timeout: timeoutMs, lookup: guardedLookup(policy) };
}

/** An undici Agent (for fetch) whose every connection obeys `policy`. */
export function guardedAgent(policy: AddressPolicy): Agent {
  return new Agent({ connect: guardedConnectOptions(policy) });
}
