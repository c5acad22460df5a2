/**
 * WebSocket upgrades across a cluster: an upgrade for a path a plugin routes (`routeUpgrades`, e.g.
 * the remote console's relay, whose session lives on the instance that issued its ticket) arriving
 * at another instance is passed on to that one: the same request line and headers, signed as an
 * internal call (the signature covers the method and the path with its query) with the client's
 * address, then the bytes both ways until either side closes. The receiving instance checks the
 * signature and serves the upgrade itself (it is never passed on again), with the client's address
 * as the one the first instance saw. An instance that is down or does not answer within 2 s is
 * answered for with 503 at once.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpError } from '../http/http-error.js';
import { refuseUpgrade } from '../http/upgrade-refusal.js';
import { forwardedClient, trustForwardedFor } from '../http/client-address.js';
import type { Logger } from '../log/logger.js';
import { INTERNAL_HEADER, signInternal, type InternalVerifier } from './internal-key.js';

/** Decides which instance serves an upgrade: another's id to pass it there, or null to serve it here. */
export type UpgradeRouter = (req: IncomingMessage) => string | null;

const CONNECT_TIMEOUT_MS = 2000;
const FORWARDED_FOR = 'x-forwarded-for';

export interface UpgradeForwarderOptions {
  self: string;
  key: Buffer;
  verifier: InternalVerifier;
  /** The URL of an up instance, or undefined when it is down or unknown. */
  urlOf(id: string): Promise<string | undefined>;
  logger: Logger;
}

export interface UpgradeForwarder {
  route(path: string, router: UpgradeRouter): void;
  /**
   * Called for every upgrade before the plugin's handler: true when it was passed on to another
   * instance or refused (the socket is taken care of), false to serve it here.
   */
  handle(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}

const unavailable = () =>
  new HttpError(503, 'GW_ERR_INSTANCE_UNAVAILABLE', 'the gateway instance that must serve this connection is down or did not answer; try again shortly', { expose: true, headers: { 'Retry-After': '5' } });

export function createUpgradeForwarder(options: UpgradeForwarderOptions): UpgradeForwarder {
  const routers = new Map<string, UpgradeRouter>();
  const pass = (req: IncomingMessage, socket: Duplex, head: Buffer, base: string, target: string) => {
    const url = new URL(base);
    const secure = url.protocol === 'https:';
    const port = Number(url.port || (secure ? 443 : 80));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const upstream: Socket = secure ? connectTls({ host, port, servername: host }) : connectTcp({ host, port });
    let connected = false;
    const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
    upstream.once(secure ? 'secureConnect' : 'connect', () => {
      connected = true;
      clearTimeout(timer);
      const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!.toLowerCase();
        if (name === INTERNAL_HEADER || name === FORWARDED_FOR) continue;
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      lines.push(`${INTERNAL_HEADER}: ${signInternal(options.key, options.self, req.method ?? 'GET', req.url ?? '/')}`);
      lines.push(`${FORWARDED_FOR}: ${forwardedClient(req)}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', (err) => {
      clearTimeout(timer);
      if (!connected) {
        options.logger.warn('passing a WebSocket to another instance failed', { instance: target, path: req.url?.split('?')[0], error: err.message });
        refuseUpgrade(socket, unavailable());
      } else socket.destroy();
    });
    upstream.on('close', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.on('close', () => upstream.destroy());
  };
  return {
    route(path, router) {
      if (routers.has(path)) throw new Error(`upgrades of ${path} are routed already`);
      routers.set(path, router);
    },
    handle(req, socket, head) {
      const signature = req.headers[INTERNAL_HEADER];
      if (signature !== undefined) {
        if (typeof signature !== 'string' || !options.verifier.verify(signature, req.method ?? 'GET', req.url ?? '/')) {
          refuseUpgrade(socket, new HttpError(401, 'GW_ERR_INTERNAL_SIGNATURE', 'the internal call signature is invalid or expired'));
          return true;
        }
        trustForwardedFor(req);
        return false; // passed on by another instance: served here
      }
      const router = routers.get((req.url ?? '/').split('?')[0]!);
      const target = router?.(req);
      if (!target || target === options.self) return false;
      void options.urlOf(target).then(
        (base) => (base ? pass(req, socket, head, base, target) : refuseUpgrade(socket, unavailable())),
        () => refuseUpgrade(socket, unavailable()),
      );
      return true;
    },
  };
}
