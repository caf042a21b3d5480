import { createHash, randomBytes } from 'node:crypto';

/**
 * Bearer secrets of the portal (session cookies, invitation links): 32 random bytes, base64url.
 * Only their SHA-256 is stored, as for API keys, so a copy of the store signs nobody in.
 */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The CSRF token of a session, derived from its cookie value (docs/people.md "Sessions"): the page
 * reads it from the sign-in answer or GET /v2/session and sends it as X-CSRF-Token. Another site
 * can make the browser send the cookie but can neither read it nor this token.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHash('sha256').update(`csrf:${sessionToken}`, 'utf8').digest('base64url');
}
