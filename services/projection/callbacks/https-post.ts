/**
 * One HTTPS POST to an address that was checked beforehand. The connection goes to that address
 * (a pinned `lookup`), while TLS still verifies the certificate against the URL's host name.
 * Redirects are not followed: a 3xx is an answer that is not 2xx. The body of the answer is read
 * and dropped. Never throws: every outcome is a status code or a short error text.
 */
import { pinnedRequest, requestErrorCode, type CheckedCallbackUrl } from '../../platform/outbound-http/index.ts';

export interface PostResult {
  statusCode: number | null;
  error: string | null;
}

export function httpsPost(
  target: CheckedCallbackUrl,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; ca?: string | Buffer | Array<string | Buffer> },
): Promise<PostResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const payload = Buffer.from(body, 'utf8');
    const req = pinnedRequest(target, {
      method: 'POST', headers: { ...headers, 'Content-Length': String(payload.length) }, ...(options.ca ? { ca: options.ca } : {}),
    });
    // The whole exchange, connection and TLS included, has timeoutMs to produce an answer. When
    // the process was busy past the deadline (a long batch on a loaded machine), the answer may
    // already wait in the socket: the timer fires before the loop reads it, and the attempt
    // would count as a timeout and be sent again although the receiver took it. One more turn of
    // the loop (its poll phase runs before setImmediate) reads such an answer first.
    const timer = setTimeout(() => setImmediate(() => {
      if (settled) return;
      finish({ statusCode: null, error: 'timeout' });
      req.destroy();
    }), options.timeoutMs);
    req.on('response', (res) => {
      finish({ statusCode: res.statusCode ?? null, error: null });
      res.on('end', () => clearTimeout(timer));
      res.on('error', () => clearTimeout(timer));
      res.resume();
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      finish({ statusCode: null, error: requestErrorCode(error, 'network_error') });
    });
    req.end(payload);
  });
}
