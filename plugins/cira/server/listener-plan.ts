/**
 * Which listener the CIRA server runs, from its options: TLS in the gateway on `host`:`port`, or,
 * with `tls.terminator: "haproxy"`, the plain APF listener that accepts only PROXY v2 connections
 * from HAProxy, on a loopback address (127.0.0.1 unless `host` names another) or a unix socket
 * (`socketPath`), or on a network address when `tls.proxySources` names the HAProxy hosts allowed to
 * connect (a cluster's HAProxy on another host). A configuration that would expose that plain
 * listener to anyone else, or that mixes the two, is refused at start with a message naming the option.
 */
import { isIPv4 } from 'node:net';
import type { CiraConfig } from '../config.js';
import type { ListenTarget } from './socket-listener.js';
import { parseCidr, type Cidr } from '../../../core/net/ipv4.js';

export type ListenerPlan = { kind: 'tls'; target: { host: string; port: number } } | { kind: 'proxy-v2'; target: ListenTarget; sources: Cidr[] };

const isLoopback = (host: string) => (isIPv4(host) && host.startsWith('127.')) || host === '::1';

export function planListener(config: Pick<CiraConfig, 'host' | 'port' | 'socketPath' | 'tls'>, siteHost: string): ListenerPlan {
  if (config.tls.terminator === 'gateway') {
    if (config.socketPath !== null) {
      throw new Error('plugins.cira.options.socketPath: a unix socket is only for tls.terminator "haproxy" (TLS terminated by HAProxy in front of the gateway)');
    }
    return { kind: 'tls', target: { host: config.host ?? siteHost, port: config.port } };
  }
  if (config.socketPath !== null) {
    if (config.host !== null) throw new Error('plugins.cira.options: give host or socketPath for the listener behind HAProxy, not both');
    return { kind: 'proxy-v2', target: { path: config.socketPath }, sources: [] };
  }
  const host = config.host ?? '127.0.0.1';
  const sources = config.tls.proxySources.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`plugins.cira.options.tls.proxySources: "${text}" is not an IPv4 CIDR block`);
    return cidr;
  });
  if (!isLoopback(host) && sources.length === 0) {
    throw new Error(
      `plugins.cira.options.host: with tls.terminator "haproxy" the plain APF listener takes no TLS and trusts the PROXY header, so it must not be reachable from the network: bind it to a loopback address (127.0.0.0/8 or ::1), use socketPath, or name the HAProxy hosts in tls.proxySources (got "${host}")`,
    );
  }
  return { kind: 'proxy-v2', target: { host, port: config.port }, sources };
}
