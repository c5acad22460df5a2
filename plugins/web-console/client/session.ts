/** The signed-in session, kept for the tab only (sessionStorage): closing the tab forgets the token. */
export interface SessionUser {
  username: string;
  permissions: string[];
}

export interface Session {
  token: string;
  expiresAt: string;
  user: SessionUser;
}

const KEY = 'amtgw.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    const session = raw ? (JSON.parse(raw) as Session) : null;
    return session && Date.parse(session.expiresAt) > Date.now() ? session : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}

export const can = (session: Session, permission: string) => session.user.permissions.includes(permission);
