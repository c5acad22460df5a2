/** Which page a path shows: the console's own pages by route name, a placeholder for others. */
import { matchRoute, type FrontendRoute } from '../components/nav-menu.js';
import type { Session } from '../session.js';
import { ActivationPage } from './activation/activation-page.js';
import { CiraPage } from './cira-page.js';

import { AuditPage } from './audit-page.js';
import { CredentialsPage } from './credentials-page.js';
import { DevicePage } from './device-page.js';
import { DevicesPage } from './devices-page.js';
import { DiagnosticsPage } from './diagnostics-page.js';
import { HomePage } from './home-page.js';
import { ImagesPage } from './images-page.js';
import { MonitorPage } from './monitor-page.js';
import { PowerPage } from './power-page.js';
import { ScanPage } from './scan-page.js';
import { UsersPage } from './users-page.js';

export function PageFor({ path, routes, session }: { path: string; routes: FrontendRoute[]; session: Session }) {
  const route = matchRoute(routes, path);
  if (!route) {
    return (
      <section>
        <h1>Not found</h1>
        <p>There is no page at {path} for you. Choose one from the menu.</p>
      </section>
    );
  }
  const rest = route.path === '/' ? '' : path.slice(route.path.length).replace(/^\//, '');
  switch (route.name) {
    case 'home':
      return <HomePage session={session} routes={routes} />;
    case 'devices':
      return rest ? <DevicePage id={decodeURIComponent(rest)} session={session} /> : <DevicesPage session={session} />;
    case 'scan':
      return <ScanPage session={session} />;
    case 'credentials':
      return <CredentialsPage session={session} />;
    case 'diagnostics':
      return <DiagnosticsPage />;
    case 'monitor':
      return <MonitorPage />;
    case 'power':
      return <PowerPage session={session} />;
    case 'users':
      return <UsersPage session={session} />;
    case 'cira':
      return <CiraPage session={session} />;
    case 'activation':
      return <ActivationPage session={session} />;

    case 'audit':
      return <AuditPage />;
    case 'images':
      return <ImagesPage session={session} />;
    default:
      return (
        <section>
          <h1>{route.meta.title}</h1>
          <p>This page comes from a plugin the console has no view for. Its API is listed at <a href="/swagger" target="_blank" rel="noopener">/swagger</a>.</p>
        </section>
      );
  }
}
