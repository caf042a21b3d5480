import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Locale } from '../domain/types.ts';
import { documentSecurityHeaders, sendDocument, type DocumentFile } from './document-response.ts';
import { localeFrom } from './locale.ts';

/**
 * The API's documentation at `/docs` (docs/api-decisions.md "API docs page"): Swagger UI
 * (swagger-ui-dist, Apache-2.0) rendering this service's own `/v2/openapi.json`, served from the
 * service itself, no CDN. The page is public like the OpenAPI document: it holds no data, and a
 * call tried from it carries the key the reader types.
 *
 * Swagger UI sets inline style attributes (its React components) and its CSS uses `data:` images,
 * so the policy here allows those two for styles and images only; scripts stay `'self'`, and the
 * initialisation is a file of ours, not an inline script.
 */
export type DocsAsset = DocumentFile;

/** Swagger UI's needs (see above) on top of what every document's policy says (document-response.ts). */
export const DOCS_SECURITY_HEADERS = documentSecurityHeaders([
  "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:", "connect-src 'self'",
]);

export const TEXT: Record<Locale, { title: string; back: string; openapi: string }> = {
  da: { title: 'API-dokumentation', back: 'Til siden', openapi: 'OpenAPI-dokumentet (JSON)' },
  en: { title: 'API documentation', back: 'To the page', openapi: 'The OpenAPI document (JSON)' },
};

function asset(contentType: string, body: Buffer | string): DocsAsset {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return { contentType, body: bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
}

function indexHtml(locale: Locale): string {
  const t = TEXT[locale];
  return `<!DOCTYPE html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.title} – Robinson</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="stylesheet" href="/docs/docs.css">
<link rel="icon" type="image/png" href="/docs/favicon.png">
</head>
<body>
<header class="docs-header"><h1>${t.title}</h1><nav><a href="/">${t.back}</a> · <a href="/v2/openapi.json">${t.openapi}</a></nav></header>
<main id="swagger-ui"></main>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;
}

const INIT = `// Renders this service's own OpenAPI document (no other origin is reachable: connect-src 'self').
window.ui = SwaggerUIBundle({ url: '/v2/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });
`;

const CSS = `.docs-header { font-family: sans-serif; padding: 12px 20px; border-bottom: 1px solid #d0d7de; }
.docs-header h1 { font-size: 1.4rem; margin: 0 0 4px; }
.docs-header a { color: #0b5394; }
`;

/** `/docs` in both languages (by Accept-Language) and its files, read once at start. */
export function buildDocsPage(): { index: Record<Locale, DocsAsset>; files: ReadonlyMap<string, DocsAsset> } {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // The bundle's source-map comment would send browsers' devtools to a file we do not serve.
  const bundle = readFileSync(join(dist, 'swagger-ui-bundle.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  return {
    index: { da: asset('text/html; charset=utf-8', indexHtml('da')), en: asset('text/html; charset=utf-8', indexHtml('en')) },
    files: new Map([
      ['/docs/swagger-ui.css', asset('text/css; charset=utf-8', readFileSync(join(dist, 'swagger-ui.css')))],
      ['/docs/swagger-ui-bundle.js', asset('text/javascript; charset=utf-8', bundle)],
      ['/docs/init.js', asset('text/javascript; charset=utf-8', INIT)],
      ['/docs/docs.css', asset('text/css; charset=utf-8', CSS)],
      ['/docs/favicon.png', asset('image/png', readFileSync(join(dist, 'favicon-32x32.png')))],
    ]),
  };
}

export type DocsPage = ReturnType<typeof buildDocsPage>;

/** GET /docs (and /docs/) and /docs/<file>; not in the OpenAPI document (they are not the API). */
export function registerDocsPage(app: FastifyInstance, page: DocsPage): void {
  for (const path of ['/docs', '/docs/']) {
    app.get(path, async (request, reply) => {
      reply.header('Vary', 'Accept-Language');
      return sendDocument(request, reply, page.index[localeFrom(request.headers['accept-language'])], DOCS_SECURITY_HEADERS);
    });
  }
  for (const [path, file] of page.files) app.get(path, async (request, reply) => sendDocument(request, reply, file, DOCS_SECURITY_HEADERS));
}
