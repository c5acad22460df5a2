/**
 * Which listener the CIRA server runs, from its options: TLS in the gateway on `host`:`port`, or,
 * with `tls.terminator: "haproxy"`, the plain APF listener that accepts only PROXY v2 connections
 * from HAProxy, on a loopback address (127.0.0.1 unless `host` names another) taking connections
 * only from `proxySources`, or a unix socket (`socketPath`, its file limited to the gateway's user
 * and `socketGroup`). A configuration that would expose that plain listener to the network or to
 * every local process, or that mixes the two, is refused at start with a message naming the option.
 */
import { isIPv4 } from 'node:net';
import { createNetworkMatcher } from '../../../core/net/network-matcher.js';
import type { CiraConfig } from '../config.js';
import type { ListenTarget } from './socket-listener.js';

/** Who may connect to the plain listener: peers from these addresses (a port), or whoever the socket file lets in (a unix socket, `group` its group). */
export type ProxyAdmission = { sources: string[] } | { group: string | null };

export type ListenerPlan = { kind: 'tls'; target: { host: string; port: number } } | { kind: 'proxy-v2'; target: ListenTarget; admission: ProxyAdmission };

const isLoopback = (host: string) => (isIPv4(host) && host.startsWith('127.')) || host === '::1';

export function planListener(config: Pick<CiraConfig, 'host' | 'port' | 'socketPath' | 'socketGroup' | 'proxySources' | 'tls'>, siteHost: string): ListenerPlan {
  if (config.tls.terminator === 'gateway') {
    if (config.socketPath !== null) {
      throw new Error('plugins.cira.options.socketPath: a unix socket is only for tls.terminator "haproxy" (TLS terminated by HAProxy in front of the gateway)');
    }
    return { kind: 'tls', target: { host: config.host ?? siteHost, port: config.port } };
  }
  if (config.socketPath !== null) {
    if (config.host !== null) throw new Error('plugins.cira.options: give host or socketPath for the listener behind HAProxy, not both');
    if (config.proxySources.length > 0) throw new Error('plugins.cira.options.proxySources: a unix socket admits by its file (owner, socketGroup, mode 0660), not by address; drop proxySources or listen on a port');
    return { kind: 'proxy-v2', target: { path: config.socketPath }, admission: { group: config.socketGroup } };
  }
  if (config.socketGroup !== null) throw new Error('plugins.cira.options.socketGroup: only a unix socket (socketPath) has a group');
  checkProxySources(config.proxySources);
  const host = config.host ?? '127.0.0.1';
  if (!isLoopback(host)) {
    throw new Error(
      `plugins.cira.options.host: with tls.terminator "haproxy" the plain APF listener takes no TLS and trusts the PROXY header, so it must not be reachable from the network: bind it to a loopback address (127.0.0.0/8 or ::1) or use socketPath (got "${host}")`,
    );
  }
  return { kind: 'proxy-v2', target: { host, port: config.port }, admission: { sources: config.proxySources } };
}

/** A port behind HAProxy takes PROXY headers from listed addresses only: some, and none that admits everyone. */
function checkProxySources(sources: readonly string[]): void {
  if (sources.length === 0) {
    throw new Error(
      'plugins.cira.options.proxySources: the plain APF listener believes the PROXY header it is sent, so it must know which peers are HAProxy: list the address HAProxy connects from (e.g. "127.0.0.2", with `source 127.0.0.2` on its server line), or, better, listen on a unix socket (socketPath, with socketGroup set to HAProxy\'s group), which no other local user can open',
    );
  }
  createNetworkMatcher([...sources], 'plugins.cira.options.proxySources entry');
  const everyone = sources.find((entry) => /\/0$/.test(entry));
  if (everyone) throw new Error(`plugins.cira.options.proxySources: '${everyone}' admits every peer; list HAProxy's address`);
}
