import { useEffect, useState } from 'preact/hooks';
import { apiFull } from '../api.js';
import type { FrontendRoute } from '../components/nav-menu.js';
import { can, type Session } from '../session.js';

export function HomePage({ session, routes }: { session: Session; routes: FrontendRoute[] }) {
  const [total, setTotal] = useState<number | null>(null);
  useEffect(() => {
    if (can(session, 'devices:read')) apiFull('GET', '/devices?limit=1').then((r) => setTotal(r.total), () => setTotal(null));
  }, [session]);
  return (
    <section>
      <h1>Home</h1>
      <p>Welcome, {session.user.username}.</p>
      {total !== null && (
        <p>
          The gateway knows <strong>{total.toLocaleString()}</strong> devices. <a href="/devices">See them</a>.
        </p>
      )}
      <h2>Your pages</h2>
      <ul>
        {routes.slice(1).map((r) => (
          <li key={r.name}>
            <a href={r.path}>{r.meta.title}</a>
          </li>
        ))}
      </ul>
      {routes.length === 1 && <p>Your account has no permissions yet; ask an administrator.</p>}
    </section>
  );
}
