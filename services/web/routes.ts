import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebAsset, WebPage } from './assets.ts';

/**
 * Headers of every page response. The page runs only its own scripts and styles (no inline
 * script or style attribute, no eval), talks only to this origin, cannot be framed, and sends no
 * Referer (a job id in the fragment never leaves, and nothing else would). The API routes keep
 * their own headers: they answer JSON and files, not documents.
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': [
    "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
    "manifest-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  // Revalidated each time (ETag), so a new deployment's page is never mixed with old modules.
  'Cache-Control': 'no-cache',
};

function send(request: FastifyRequest, reply: FastifyReply, asset: WebAsset) {
  reply.headers(PAGE_SECURITY_HEADERS).header('ETag', asset.etag);
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.code(200).type(asset.contentType).send(asset.body);
}

/**
 * The web page for people who are not programmers (docs/web.md): `GET /` and `GET /app/<file>`,
 * no key needed (the page holds no data; every call it makes carries the key the person typed).
 * Unknown files under /app are the API's 404.
 */
export function registerWebPage(app: FastifyInstance, page: WebPage): void {
  for (const [path, asset] of page) {
    // HEAD is answered by fastify from the GET route (exposeHeadRoutes).
    app.get(path, async (request, reply) => send(request, reply, asset));
  }
}
