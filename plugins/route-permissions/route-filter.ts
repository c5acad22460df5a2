import type { FrontendRoute } from '../../core/plugin-api.js';

const DEFAULT_ORDER = 100;

/** The routes a user may see: a route needs its permission; a hidden parent hides its children. */
export function visibleRoutes(routes: FrontendRoute[], permissions: ReadonlySet<string>): FrontendRoute[] {
  const visible: FrontendRoute[] = [];
  for (const route of routes) {
    if (route.meta.permission !== null && !permissions.has(route.meta.permission)) continue;
    const { children, ...rest } = route;
    const shown: FrontendRoute = { ...rest, meta: { ...route.meta } };
    if (children) shown.children = visibleRoutes(children, permissions);
    visible.push(shown);
  }
  return sortRoutes(visible);
}

/** Menu order: `meta.order` (default 100), then name. */
export function sortRoutes(routes: FrontendRoute[]): FrontendRoute[] {
  return [...routes].sort((a, b) => (a.meta.order ?? DEFAULT_ORDER) - (b.meta.order ?? DEFAULT_ORDER) || a.name.localeCompare(b.name));
}
