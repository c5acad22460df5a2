/** The signed-in session, kept for the tab only (sessionStorage): closing the tab forgets the token. */
import type { AuthenticatedUser, LoginResponse } from './shapes.js';

export type SessionUser = AuthenticatedUser;

/** The answer to the sign-in, kept for the session. */
export type Session = LoginResponse;

const KEY = 'amtgw.session';

/** The stored session, or null; `expired` when one was stored but its token has run out (to say so). */
export function loadSession(): { session: Session | null; expired: boolean } {
  try {
    const raw = sessionStorage.getItem(KEY);
    const session = raw ? (JSON.parse(raw) as Session) : null;
    if (!session) return { session: null, expired: false };
    if (Date.parse(session.expiresAt) > Date.now()) return { session, expired: false };
    sessionStorage.removeItem(KEY);
    return { session: null, expired: true };
  } catch {
    return { session: null, expired: false };
  }
}

/** What the sign-in page says when a token ran out or the gateway stopped accepting it. */
export const SESSION_EXPIRED = 'Your session has expired. Sign in again.';

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}

export const can = (session: Session, permission: string) => session.user.permissions.includes(permission);
