/**
 * Bounds the connections that have not signed in yet (TLS handshakes included), per address and in
 * total, so that a flood before sign-in cannot hold the memory of thousands of TLS sockets. A
 * connection counts from TCP accept until it signs in or closes.
 */
import type { Socket } from 'node:net';
import type { Logger } from '../../../core/plugin-api.js';
import { createConnectionBudget } from '../../../core/net/connection-budget.js';
import { createLogDigest } from '../../../core/log/log-digest.js';

export interface AdmissionOptions {
  maxUnauthenticated: number;
  maxUnauthenticatedPerAddress: number;
}

export interface AdmissionTicket {
  /** The connection signed in or closed; only the first call counts. */
  release(): void;
}

export interface Admission {
  /** A ticket for a new connection from `address`, or the bound it would exceed. */
  admit(address: string): AdmissionTicket | { refused: 'total' | 'address' };
  readonly unauthenticated: number;
}

export function createAdmission(options: AdmissionOptions): Admission {
  const budget = createConnectionBudget({ total: options.maxUnauthenticated, perAddress: options.maxUnauthenticatedPerAddress });
  return {
    get unauthenticated() {
      return budget.held;
    },
    admit: (address) => budget.admit(address),
  };
}

export interface ConnectionAdmissionOptions extends AdmissionOptions {
  logger: Logger;
  logIntervalMs: number;
  /** Counter of the server. */
  stats: { refusedConnections: number };
}

export interface ConnectionAdmission {
  /**
   * A ticket (released at the socket's close at the latest), or null after resetting the socket
   * beyond the bounds. `address` is the device's: the TCP peer's, or the PROXY v2 header's source.
   */
  admit(raw: Socket, address: string): AdmissionTicket | null;
  readonly unauthenticated: number;
  close(): void;
}

/** The bounds applied to accepted TCP sockets: refused ones are reset at once, counted and logged rate-limited. */
export function createConnectionAdmission(options: ConnectionAdmissionOptions): ConnectionAdmission {
  const admission = createAdmission(options);
  const refusedLog = createLogDigest({ logger: options.logger, message: 'cira connection refused before sign-in', summary: 'cira connections refused before sign-in (summary)', intervalMs: options.logIntervalMs });
  return {
    get unauthenticated() {
      return admission.unauthenticated;
    },
    admit(raw, remoteAddress) {
      const ticket = admission.admit(remoteAddress);
      if ('release' in ticket) {
        raw.once('close', ticket.release);
        return ticket;
      }
      options.stats.refusedConnections++;
      refusedLog.note(remoteAddress, { remoteAddress, bound: ticket.refused === 'total' ? 'preAuth.maxConnections' : 'preAuth.maxConnectionsPerAddress' });
      raw.on('error', () => undefined);
      raw.resetAndDestroy();
      return null;
    },
    close: () => refusedLog.close(),
  };
}
