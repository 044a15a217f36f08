import type { Express } from 'express';

/** One path the app routes, as written in the code (`/api/jobs/:id`), and the methods served there. */
export interface AppRoute {
  path: string;
  methods: string[];
}

interface Layer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[]; router?: { stack?: Layer[] } };
}

/**
 * Every route of an Express app, read from its router: routes of nested routers and mounted apps (Bull Board) with
 * their mount path, and middleware mounted on a path of its own (static assets) as `<path>/*rest`. A route added to
 * the code is in this list without anyone writing it down.
 */
export function routesOf(app: Express): AppRoute[] {
  const byPath = new Map<string, Set<string>>();
  const add = (path: string, methods: string[]) => {
    const served = byPath.get(path) ?? new Set<string>();
    for (const method of methods) served.add(method.toUpperCase());
    byPath.set(path, served);
  };
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) add(`${prefix}${path}`.replace(/(.)\/$/, '$1'), Object.keys(layer.route.methods));
        continue;
      }
      const nested = layer.handle?.stack ?? layer.handle?.router?.stack;
      if (nested) walk(nested, prefix + mount);
      else if (mount) add(`${prefix}${mount}/*rest`, ['GET', 'HEAD']);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...byPath].map(([path, methods]) => ({ path, methods: [...methods].sort() }));
}
