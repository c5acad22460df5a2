/**
 * Single-use WebSocket tickets: 256 random bits, bound to the user's immutable id (not its name), the
 * sign-in (token) that asked for it, the device and the mode, valid for a bounded time. An issued
 * ticket holds no device slot and counts against its own user's budget only (`maxPerUser`), so no
 * user's unused tickets can keep another from getting one. Taking a ticket (valid or not) spends it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { SessionMode } from './device-state.js';

/** Who a ticket (and the session it opens) belongs to. */
export interface TicketOwner {
  userId: string;
  username: string;
  /** The id of the bearer token that asked for it (`PluginAuth.tokenId`): signing that token out drops it. */
  tokenId: string;
}

export interface Ticket extends TicketOwner {
  sessionId: string;
  deviceId: string;
  mode: SessionMode;
  expiresAtMs: number;
}

export type IssueOutcome = { ticket: string; value: Ticket } | { retryAfterSeconds: number };

export function createTicketStore(ttlMs: number, maxPerUser: number, now: () => number = Date.now) {
  const tickets = new Map<string, Ticket>();
  const byUser = new Map<string, Set<string>>();
  const remove = (key: string) => {
    const value = tickets.get(key);
    if (!value) return;
    tickets.delete(key);
    const own = byUser.get(value.userId);
    own?.delete(key);
    if (own?.size === 0) byUser.delete(value.userId);
  };
  /** The user's unexpired tickets, its expired ones removed on the way. */
  const liveOf = (userId: string): Ticket[] => {
    const at = now();
    const live: Ticket[] = [];
    for (const key of [...(byUser.get(userId) ?? [])]) {
      const value = tickets.get(key)!;
      if (value.expiresAtMs <= at) remove(key);
      else live.push(value);
    }
    return live;
  };
  return {
    /** A new ticket, or the seconds until the user's oldest ticket expires when it holds `maxPerUser` already. */
    issue(owner: TicketOwner, deviceId: string, mode: SessionMode): IssueOutcome {
      const live = liveOf(owner.userId);
      if (live.length >= maxPerUser) {
        const oldest = Math.min(...live.map((t) => t.expiresAtMs));
        return { retryAfterSeconds: Math.max(1, Math.ceil((oldest - now()) / 1000)) };
      }
      const ticket = randomBytes(32).toString('base64url');
      const value: Ticket = { ...owner, sessionId: randomUUID(), deviceId, mode, expiresAtMs: now() + ttlMs };
      tickets.set(ticket, value);
      let own = byUser.get(owner.userId);
      if (!own) byUser.set(owner.userId, (own = new Set()));
      own.add(ticket);
      return { ticket, value };
    },
    /** The ticket's binding, once: a second take, or a take after expiry, gives null. */
    take(ticket: string): Ticket | null {
      const value = tickets.get(ticket);
      if (!value) return null;
      remove(ticket);
      return value.expiresAtMs > now() ? value : null;
    },
    /** Drops the user's tickets that `doomed` picks (its sign-in was revoked); returns how many. */
    drop(userId: string, doomed: (ticket: Ticket) => boolean): number {
      let dropped = 0;
      for (const key of [...(byUser.get(userId) ?? [])]) {
        if (!doomed(tickets.get(key)!)) continue;
        remove(key);
        dropped++;
      }
      return dropped;
    },
    /** Removes every expired ticket. */
    sweep(): void {
      for (const userId of [...byUser.keys()]) liveOf(userId);
    },
    get size() {
      return tickets.size;
    },
  };
}

export type TicketStore = ReturnType<typeof createTicketStore>;
