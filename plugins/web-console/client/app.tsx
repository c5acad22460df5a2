/** The console: sign-in, then the menu from GET /api/routes and the page of the current path. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, setToken, setUnauthorizedHandler } from './api.js';
import { connectHub, disconnectHub } from './hub.js';
import { matchRoute, NavMenu, type FrontendRoute } from './components/nav-menu.js';
import { Message } from './components/field.js';
import { navigate, onLinkClick, usePath } from './router.js';
import { loadSession, saveSession, SESSION_EXPIRED, type Session } from './session.js';
import { SignIn } from './pages/sign-in.js';
import { PageFor } from './pages/page-for.js';

export function App() {
  const [stored] = useState(loadSession);
  const [session, setSession] = useState<Session | null>(() => {
    setToken(stored.session?.token ?? null);
    return stored.session;
  });
  const [notice, setNotice] = useState<string | null>(stored.expired ? SESSION_EXPIRED : null);
  const [routes, setRoutes] = useState<FrontendRoute[] | null>(null);
  const [routeError, setRouteError] = useState<string | null>(null);
  const path = usePath();
  const main = useRef<HTMLElement>(null);
  const shownPath = useRef(path);

  // After a navigation, focus moves to the new page (keyboard and screen-reader users start there).
  useEffect(() => {
    if (shownPath.current === path) return;
    shownPath.current = path;
    main.current?.focus();
  }, [path]);

  const end = useCallback((message: string | null) => {
    saveSession(null);
    setToken(null);
    disconnectHub();
    setSession(null);
    setRoutes(null);
    setNotice(message);
  }, []);

  // A 401 to a signed-in call means the token expired or was revoked.
  useEffect(() => setUnauthorizedHandler(() => end(SESSION_EXPIRED)), [end]);

  // The token's end is known: say so then, rather than at the next click.
  useEffect(() => {
    if (!session) return;
    const left = Date.parse(session.expiresAt) - Date.now();
    // Timers fire at once past 2^31-1 ms; a token that long-lived is re-checked by its next 401.
    if (!(left < 2 ** 31 - 1)) return;
    const timer = setTimeout(() => end(SESSION_EXPIRED), Math.max(0, left));
    return () => clearTimeout(timer);
  }, [session, end]);

  useEffect(() => {
    if (!session) return;
    void connectHub(session.token);
    api<FrontendRoute[]>('GET', '/routes').then(setRoutes, (err) => setRouteError(errorText(err)));
    return () => disconnectHub();
  }, [session]);

  useEffect(() => {
    const title = routes && matchRoute(routes, path)?.meta.title;
    document.title = title ? `${title} · amt-gateway` : 'amt-gateway console';
  }, [routes, path]);

  const signedIn = (s: Session) => {
    saveSession(s);
    setToken(s.token);
    setNotice(null);
    setSession(s);
  };

  const signOut = async () => {
    try {
      await api('POST', '/auth/logout');
    } catch {
      // The token is dropped here whatever the server says.
    }
    end('You are signed out.');
    navigate('/', true);
  };

  if (!session) return <SignIn onSignedIn={signedIn} notice={notice} />;
  return (
    <div class="shell" onClick={onLinkClick}>
      <header class="top">
        <a class="brand" href="/">
          amt-gateway
        </a>
        <span class="who">
          Signed in as <strong>{session.user.username}</strong>
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      {routes ? <NavMenu routes={routes} current={path} /> : <nav aria-label="Main" />}
      <main ref={main} tabIndex={-1}>
        {routeError && <Message kind="error">Could not load the menu: {routeError}</Message>}
        {routes && <PageFor path={path} routes={routes} session={session} />}
      </main>
    </div>
  );
}
