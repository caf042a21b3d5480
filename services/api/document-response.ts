import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * How the service answers a document (an HTML page and its files) rather than JSON: the web page
 * (services/api/web/routes.ts) and the API's documentation (services/api/docs-page.ts). The API
 * routes keep their own headers: they answer JSON and files, not documents.
 */
export interface DocumentFile {
  contentType: string;
  body: Buffer;
  /** Strong validator of `body` (answered with `Cache-Control: no-cache` + ETag). */
  etag: string;
}

/**
 * The security headers of a document. Every document runs only its own scripts (no eval, no
 * inline script), talks only to this origin, cannot be framed, sends no Referer and is
 * revalidated each time (ETag), so a new deployment's page is never mixed with old files.
 * `sources` are the policy's other fetch directives, which differ per document (what its styles,
 * images and fonts need); `extra` adds headers only one document sends.
 */
export function documentSecurityHeaders(sources: readonly string[], extra: Readonly<Record<string, string>> = {}): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'", "script-src 'self'", ...sources, "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    ...extra,
    'Cache-Control': 'no-cache',
  };
}

/** Answers `file` with `headers` and its ETag: 304 when the client holds this version. */
export function sendDocument(request: FastifyRequest, reply: FastifyReply, file: DocumentFile, headers: Readonly<Record<string, string>>) {
  reply.headers(headers).header('ETag', file.etag);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.code(200).type(file.contentType).send(file.body);
}
