/** The menu: exactly GET /api/routes, in its order and nesting, the home route first. */
import type { FrontendRoute } from '../shapes.js';

export type { FrontendRoute };

function MenuList({ routes, current }: { routes: FrontendRoute[]; current: string }) {
  return (
    <ul>
      {routes.map((r) => (
        <li key={r.name}>
          <a href={r.path} aria-current={isCurrent(r.path, current) ? 'page' : undefined}>
            {r.meta.title}
          </a>
          {r.children && r.children.length > 0 && <MenuList routes={r.children} current={current} />}
        </li>
      ))}
    </ul>
  );
}

const isCurrent = (path: string, current: string) => (path === '/' ? current === '/' : current === path || current.startsWith(path + '/'));

export function NavMenu({ routes, current }: { routes: FrontendRoute[]; current: string }) {
  return (
    <nav aria-label="Main">
      <MenuList routes={routes} current={current} />
    </nav>
  );
}

/** The deepest route whose path is the current page or a parent of it. */
export function matchRoute(routes: FrontendRoute[], current: string): FrontendRoute | null {
  let best: FrontendRoute | null = null;
  const walk = (list: FrontendRoute[]) => {
    for (const r of list) {
      if (isCurrent(r.path, current) && (!best || r.path.length > best.path.length)) best = r;
      if (r.children) walk(r.children);
    }
  };
  walk(routes);
  return best;
}
