/**
 * Errors Node's HTTP server answers before fastify sees a request (docs/api-decisions.md "Server
 * timeouts and errors before routing"): a request line or header that does not parse (400), a
 * head over MAX_REQUEST_HEAD_BYTES (431), a head or body that does not arrive in time (408). They
 * get the contract's error body and a Request-Id like every other answer; fastify's default wrote
 * its own body shape and no id.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import type { Locale } from '../domain/types.ts';
import type { Logger } from '../platform/logger.ts';
import { localeFrom } from './locale.ts';

export const ANSWERS = {
  request_timeout: {
    status: 408,
    da: 'Forespørgslen kom ikke frem i tide; forbindelsen lukkes.',
    en: 'The request did not arrive in time; the connection is closed.',
  },
  headers_too_large: {
    status: 431,
    da: 'Forespørgslens linje og headere er for store.',
    en: 'The request line and headers are too large.',
  },
  bad_request: { status: 400, da: 'Forespørgslen kunne ikke læses.', en: 'The request could not be read.' },
} as const;

type Reason = keyof typeof ANSWERS;

function reasonOf(code: string | undefined): Reason {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return 'request_timeout';
  if (code === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  return 'bad_request';
}

/** The caller's language when the bytes that failed to parse say it, else the contract's default. */
function localeOfPacket(packet: Buffer | undefined): Locale {
  const header = packet?.toString('latin1').match(/\r\naccept-language:([^\r\n]*)/i)?.[1];
  return localeFrom(header?.trim());
}

/** The full HTTP answer for a client error: status line, Request-Id, the contract's body, close. */
export function clientErrorResponse(code: string | undefined, packet?: Buffer): { reason: Reason; requestId: string; raw: string } {
  const reason = reasonOf(code);
  const answer = ANSWERS[reason];
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code: 'invalid_request', message: answer[localeOfPacket(packet)], details: { reason }, request_id: requestId } });
  const raw = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n`
    + `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
    + `Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`;
  return { reason, requestId, raw };
}

/** fastify's `clientErrorHandler`: answers in the contract's shape when nothing was written yet. */
export function createClientErrorHandler(logger: Logger) {
  return function handleClientError(error: ConnectionError, socket: Socket): void {
    // A reset or destroyed socket has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // A response already under way (a body cut off while its handler answered) must not be
    // followed by a second status line on the same socket.
    if (socket.writable && socket.bytesWritten === 0) {
      // Node hands over the bytes that failed to parse as a Buffer (fastify's type says otherwise).
      const packet = (error as { rawPacket?: unknown }).rawPacket;
      const { reason, requestId, raw } = clientErrorResponse(error.code, Buffer.isBuffer(packet) ? packet : undefined);
      logger.info({ request_id: requestId, reason, code: error.code }, 'api.client_error');
      // Closed once the answer is flushed, not before (a destroy right away may drop it).
      socket.end(raw, () => socket.destroy());
      return;
    }
    socket.destroy();
  };
}
