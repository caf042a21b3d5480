/**
 * One HTTPS GET of a connector's URL into a local file. The URL passes the callback address rules
 * first (services/platform/outbound-http `checkCallbackUrl`: https only, no credentials in the URL,
 * every resolved address public unless the host is allow-listed) and the connection goes to the
 * address that was checked (a pinned lookup, so DNS cannot change between check and connect),
 * while TLS verifies the certificate against the URL's host name. Redirects are not followed (a
 * 3xx is an error: the new address would escape the check). The body is written as it arrives,
 * never held in memory, and cut off beyond `maxBytes`.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import {
  CallbackUrlError, checkCallbackUrl, pinnedRequest, requestErrorCode, type CheckedCallbackUrl, type LookupAll,
} from '../../platform/outbound-http/index.ts';

/** Why a pull failed; `code` is stored as the connector's last error (no secret, no content). */
export class PullError extends Error {
  readonly code: string;
  constructor(code: string) {
    super(`pull failed: ${code}`);
    this.name = 'PullError';
    this.code = code;
  }
}

export interface PullOptions {
  headers: Record<string, string>;
  allowHosts: readonly string[];
  timeoutMs: number;
  maxBytes: number;
  lookup?: LookupAll;
  /** Extra trusted certificates (a test server's own); else the system's CAs. */
  ca?: string;
}

export interface Pulled {
  /** The media type of the answer, lower case, without parameters ('' when none). */
  contentType: string;
  bytes: number;
}

/** Every failure to connect or read is a connect error here, whatever Node calls it. */
function networkCode(error: unknown): string {
  return requestErrorCode(error, 'connect_error');
}

export async function pullToFile(url: string, dest: string, options: PullOptions): Promise<Pulled> {
  let target: CheckedCallbackUrl;
  try {
    target = await checkCallbackUrl(url, { allowHosts: options.allowHosts, ...(options.lookup ? { lookup: options.lookup } : {}) });
  } catch (error) {
    if (error instanceof CallbackUrlError) throw new PullError(`url_refused:${error.reason}`);
    throw error;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = pinnedRequest(target, {
        method: 'GET',
        headers: { Accept: 'text/csv, application/json, application/x-ndjson, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, */*;q=0.5', ...options.headers },
        signal: controller.signal,
        ...(options.ca ? { ca: options.ca } : {}),
      });
      req.on('response', resolve);
      req.on('error', (error) => reject(controller.signal.aborted ? new PullError('timeout') : new PullError(networkCode(error))));
      req.end();
    });
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      response.resume();
      throw new PullError(`http_status:${status}`);
    }
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > options.maxBytes) done(new PullError('too_large'));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(response, counter, createWriteStream(dest, { mode: 0o600 }));
    } catch (error) {
      if (error instanceof PullError) throw error;
      throw controller.signal.aborted ? new PullError('timeout') : new PullError(networkCode(error));
    }
    const contentType = String(response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    return { contentType, bytes };
  } finally {
    clearTimeout(timer);
  }
}
