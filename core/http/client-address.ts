/**
 * The address of an upgrade request's client: its socket's peer, or, for an upgrade another
 * instance of a cluster passed on (its internal signature checked), the client's address as that
 * instance saw it. The kernel marks the second kind; nothing a client sends is believed.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { peerAddress } from '../net/network-matcher.js';

const passedOn = new WeakMap<IncomingMessage, string>();

/** Believes the request's X-Forwarded-For: call only once its internal signature was verified. */
export function trustForwardedFor(req: IncomingMessage): void {
  const value = req.headers['x-forwarded-for'];
  if (typeof value === 'string' && isIP(value.trim())) passedOn.set(req, value.trim());
}

/** The client's address (as `ctx.http.clientAddress` gives it to plugins). */
export function clientAddress(req: IncomingMessage): string {
  return passedOn.get(req) ?? peerAddress(req.socket.remoteAddress);
}

/** What an instance passing the request on names as its client. */
export const forwardedClient = clientAddress;
