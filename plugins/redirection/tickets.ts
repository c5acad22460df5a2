/**
 * Single-use WebSocket tickets: 256 random bits, bound to the user, the device and the mode, valid
 * for a bounded time. An issued ticket holds no device slot; taking it (valid or not) spends it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SessionMode } from './device-state.js';

export interface Ticket {
  sessionId: string;
  username: string;
  deviceId: string;
  mode: SessionMode;
  expiresAtMs: number;
}

export function createTicketStore(ttlMs: number, maxTickets: number, now: () => number = Date.now) {
  const tickets = new Map<string, Ticket>();
  const sweep = () => {
    const at = now();
    for (const [key, ticket] of tickets) if (ticket.expiresAtMs <= at) tickets.delete(key);
  };
  return {
    /** A new ticket, or null when `maxTickets` unexpired ones are outstanding. */
    issue(username: string, deviceId: string, mode: SessionMode): { ticket: string; value: Ticket } | null {
      if (tickets.size >= maxTickets) sweep();
      if (tickets.size >= maxTickets) return null;
      const ticket = randomBytes(32).toString('base64url');
      const value = { sessionId: randomUUID(), username, deviceId, mode, expiresAtMs: now() + ttlMs };
      tickets.set(ticket, value);
      return { ticket, value };
    },
    /** The ticket's binding, once: a second take, or a take after expiry, gives null. */
    take(ticket: string): Ticket | null {
      const value = tickets.get(ticket);
      if (!value) return null;
      tickets.delete(ticket);
      return value.expiresAtMs > now() ? value : null;
    },
    get size() {
      return tickets.size;
    },
  };
}

export type TicketStore = ReturnType<typeof createTicketStore>;
