import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { createNetworkMatcher } from '../../core/net/network-matcher.js';

/** The hosts and networks notifications may reach (`options.notifications`). */
export interface DeliveryPolicyOptions {
  /** CIDRs (or single addresses) a delivery may connect to. */
  allowedNetworks: string[];
  /** Host names (exact, or `*.example.org` for any name below it) that may resolve to any address but the never-allowed ones. */
  allowedHosts: string[];
  /** Resolves a host name to all its addresses; default: the system resolver (dns.lookup). */
  resolve?: (host: string) => Promise<LookupAddress[]>;
  /** Longest wait for one resolution. */
  resolveTimeoutMs?: number;
  /** Whether an address and port are one of this gateway's own listeners (never a receiver); default: none. */
  ownListener?: (address: string, port: number) => boolean;
}

/**
 * Where notifications may go. A delivery connects only to an address this policy allows: a
 * literal address is checked as it is; a name is resolved and its addresses are filtered (every
 * one is checked; the connection goes to one that passed), at subscribe time and again when each
 * delivery connects, since DNS answers can change. Link-local, unspecified and multicast
 * addresses are never allowed, whatever the configuration says.
 */
export interface DeliveryPolicy {
  /** Why a delivery may not connect to `address` (an IP) on `port`, or null when it may. `host` is the name it came from. */
  refusal(host: string, address: string, port?: number): string | null;
  /** The addresses a delivery to `host` (a name or an IP) on `port` may connect to; rejects with DeliveryRefused when there are none. */
  addresses(host: string, port?: number): Promise<LookupAddress[]>;
}

/** A delivery the policy does not allow; `message` names the host and the reason, never an address a name resolved to. */
export class DeliveryRefused extends Error {
  readonly code = 'GW_ERR_SOAP_DELIVERY_NOT_ALLOWED';
  /** The name did not resolve (or not in time): a later attempt may succeed, unlike a refused address. */
  readonly unresolved: boolean;
  constructor(message: string, unresolved = false) {
    super(message);
    this.name = 'DeliveryRefused';
    this.unresolved = unresolved;
  }
}

export const DEFAULT_ALLOWED_NETWORKS = ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

// Never a notification receiver: link-local (cloud metadata services live there), "this host"
// (0.0.0.0 reaches local services on Linux), multicast and broadcast.
const NEVER = createNetworkMatcher(['169.254.0.0/16', 'fe80::/10', '0.0.0.0/8', '::/128', '224.0.0.0/4', '255.255.255.255/32', 'ff00::/8'], 'never-allowed entry');

import { unmapped } from './addresses.js';

export { unmapped };

const systemResolve = (host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

function hostMatcher(patterns: string[]): (host: string) => boolean {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const pattern of patterns.map((p) => p.toLowerCase().replace(/\.$/, ''))) {
    if (pattern.startsWith('*.')) suffixes.push(pattern.slice(1));
    else exact.add(pattern);
  }
  return (host) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    return exact.has(name) || suffixes.some((s) => name.endsWith(s));
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('resolution timed out')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function createDeliveryPolicy(options: DeliveryPolicyOptions): DeliveryPolicy {
  const allowedNetwork = createNetworkMatcher(options.allowedNetworks, 'notifications.allowedNetworks entry');
  const allowedHost = hostMatcher(options.allowedHosts);
  const resolve = options.resolve ?? systemResolve;
  const resolveTimeoutMs = options.resolveTimeoutMs ?? 5000;

  const ownListener = options.ownListener ?? (() => false);
  const refusal = (host: string, address: string, port?: number): string | null => {
    const ip = unmapped(address);
    if (isIP(ip) === 0) return `${address} is not an IP address`;
    if (NEVER(ip)) return 'link-local, unspecified and multicast addresses are never notification receivers';
    if (port !== undefined && ownListener(ip, port)) return `port ${port} there is one of this gateway's own listeners, never a notification receiver`;
    if (isIP(host) === 0 && allowedHost(host)) return null;
    return allowedNetwork(ip) ? null : 'not in the networks notifications may reach (notifications.allowedNetworks)';
  };

  const addresses = async (host: string, port?: number): Promise<LookupAddress[]> => {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    if (isIP(bare) !== 0) {
      const why = refusal(bare, bare, port);
      if (why) throw new DeliveryRefused(`host ${bare}: ${why}`);
      return [{ address: unmapped(bare), family: isIP(unmapped(bare)) }];
    }
    // One message whether the name does not resolve or resolves only to refused addresses: the
    // fault must not tell a caller what internal names resolve to.
    const message = `host ${bare} does not resolve to an address notifications may reach (notifications.allowedNetworks, notifications.allowedHosts; never this gateway's own listeners)`;
    let resolved: LookupAddress[];
    try {
      resolved = await withTimeout(resolve(bare), resolveTimeoutMs);
    } catch {
      throw new DeliveryRefused(message, true);
    }
    const allowed = resolved.filter((a) => refusal(bare, a.address, port) === null).map((a) => ({ address: unmapped(a.address), family: isIP(unmapped(a.address)) }));
    if (allowed.length === 0) throw new DeliveryRefused(message, resolved.length === 0);
    return allowed;
  };

  return { refusal, addresses };
}
