import type { FastifyInstance } from 'fastify';

/**
 * The methods each registered path answers, so that a request for a known path with another
 * method gets 405 and an `Allow` header (RFC 9110 §15.5.6) instead of the 404 of an unknown path.
 * Collected from fastify's onRoute hook, so it always agrees with what is registered (the
 * OpenAPI document lists the check-job paths even when they are not wired; they are not known
 * here then, and stay 404).
 */
export interface AllowedMethods {
  /** The methods of the registered path `path` (no query string) matches, sorted; empty if none. */
  of(path: string): string[];
}

export function collectAllowedMethods(app: FastifyInstance): AllowedMethods {
  const routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  const byUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    let methods = byUrl.get(route.url);
    if (!methods) {
      methods = new Set();
      byUrl.set(route.url, methods);
      routes.push({ pattern: patternOf(route.url), methods });
    }
    for (const method of [route.method].flat()) methods.add(method.toUpperCase());
  });
  return {
    of(path) {
      const allowed = new Set<string>();
      for (const route of routes) if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
      return [...allowed].sort();
    },
  };
}

/** fastify's `/a/:id/b` as a regular expression of one whole path; a parameter is one segment. */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}
