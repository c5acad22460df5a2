/**
 * The CIRA server's listener as its plan says (`listener-plan.ts`): TLS in the gateway, or the
 * PROXY v2 listener behind HAProxy. Its refusals and TLS errors are counted and logged here, so
 * that the server only sees accepted connections, each with the device's address.
 */
import type { Socket } from 'node:net';
import type { Logger } from '../../../core/plugin-api.js';
import { createLogDigest } from '../../../core/log/log-digest.js';
import { createNetworkMatcher, peerAddress } from '../../../core/net/network-matcher.js';
import type { CiraConfig } from '../config.js';
import type { TunnelPeer, TunnelSocket } from '../tunnel/tunnel-socket.js';
import type { AdmissionTicket } from './admission.js';
import type { ListenerPlan } from './listener-plan.js';
import { createProxyListener } from './proxy-listener.js';
import type { ServerCertificate } from './server-certificate.js';
import type { SocketListener } from './socket-listener.js';
import { createTlsListener } from './tls-listener.js';

export interface ListenerCounters {
  tlsErrors: number;
  proxyHeaderErrors: number;
  refusedConnections: number;
}

export interface CiraListenerOptions {
  plan: ListenerPlan;
  config: CiraConfig;
  certificate: ServerCertificate;
  logger: Logger;
  counters: ListenerCounters;
  /** Admission before sign-in, keyed on the device's address; null: refused (the socket is gone). */
  admit(raw: Socket, address: string): AdmissionTicket | null;
  accepted(socket: TunnelSocket, peer: TunnelPeer): void;
}

export function createCiraListener({ plan, config, certificate, logger, counters, admit, accepted }: CiraListenerOptions): SocketListener {
  const common = { maxConnections: config.maxConnections, admit, accepted };
  if (plan.kind === 'proxy-v2') {
    const { admission } = plan;
    const isSource = 'sources' in admission ? createNetworkMatcher(admission.sources, 'plugins.cira.options.proxySources entry') : () => true;
    const notProxyLog = createLogDigest({
      logger,
      message: 'cira connection refused: not a configured proxy source (plugins.cira.options.proxySources); its PROXY header was not read',
      summary: 'cira connections refused: not a configured proxy source (summary)',
      intervalMs: config.logIntervalSeconds * 1000,
    });
    return createProxyListener({
      ...common,
      headerTimeoutMs: config.authTimeoutSeconds * 1000,
      // On a unix socket the peer has no address: the socket file's owner, group and mode admitted it.
      fromProxy: (peer) => peer === undefined || isSource(peerAddress(peer)),
      notProxy(peer) {
        counters.refusedConnections++;
        notProxyLog.note(peer, { remoteAddress: peerAddress(peer) });
      },
      refused(reason) {
        counters.proxyHeaderErrors++;
        logger.warn('cira connection without a valid PROXY v2 header refused (is HAProxy sending send-proxy-v2?)', { reason });
      },
    });
  }
  return createTlsListener({
    ...common,
    certificate,
    minVersion: config.tls.minVersion,
    handshakeTimeoutMs: config.authTimeoutSeconds * 1000,
    refused(reason, remoteAddress) {
      counters.tlsErrors++;
      logger.debug('cira connection refused before TLS', { remoteAddress, reason });
    },
    failed(err, remoteAddress, tls) {
      if (!tls) return void logger.debug('cira connection broke', { remoteAddress, error: err.message });
      counters.tlsErrors++;
      logger.warn('cira TLS error; tunnel closed', { remoteAddress, error: err.message });
    },
  });
}
