import type { FastifyInstance } from 'fastify';
import { documentSecurityHeaders, sendDocument } from '../document-response.ts';
import type { WebPage } from './assets.ts';

/**
 * Headers of every page response (api/document-response.ts). The page runs only its own scripts
 * and styles (no inline script or style attribute), and asks for no manifest, camera, microphone,
 * place, payment or USB; its job id in the fragment never leaves (no Referer).
 */
export const PAGE_SECURITY_HEADERS = documentSecurityHeaders(
  ["style-src 'self'", "img-src 'self'", "connect-src 'self'", "manifest-src 'none'"],
  { 'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()' },
);

/**
 * The web page for people who are not programmers (docs/web.md): `GET /` and `GET /app/<file>`,
 * no key needed (the page holds no data; every call it makes carries the key the person typed).
 * Unknown files under /app are the API's 404.
 */
export function registerWebPage(app: FastifyInstance, page: WebPage): void {
  for (const [path, asset] of page) {
    // HEAD is answered by fastify from the GET route (exposeHeadRoutes).
    app.get(path, async (request, reply) => sendDocument(request, reply, asset, PAGE_SECURITY_HEADERS));
  }
}
