import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CertificateKeys } from '../../platform/keys/certificate-keys.ts';
import { ApiError } from '../errors.ts';
import { CertificateClaimsSchema, CertificateVerificationSchema, JwksSchema } from '../schemas/certificate.ts';
import { registerRoute } from './register.ts';
import type { RouteContext, RouteSpec } from './route-spec.ts';

/**
 * Longest token accepted in the path; a real one is well under 1,000 characters. Small enough
 * that a token one character too long, percent-encoded, fits in the request head the server
 * reads (MAX_REQUEST_HEAD_BYTES) and is answered 422 by the route, not 431 by the HTTP parser.
 */
export const MAX_CERTIFICATE_LENGTH = 2048;

export const verifyCertificateSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/certificates/{token}',
  operationId: 'verifyCertificate',
  summary: "Verifies a job's certificate and returns what it states",
  description:
    'The token is a compact JWS (EdDSA, Ed25519) from a done job\'s `certificate_token`; it stays valid after the job is deleted. ' +
    'Any key may verify any certificate: a certificate is meant to be shown to others. 422 with `details.reason` ' +
    '`certificate_malformed`, `certificate_unknown_key` or `certificate_signature_invalid` when it does not verify.',
  authenticated: true,
  pathParams: { token: { description: 'The certificate_token', schema: z.string().max(MAX_CERTIFICATE_LENGTH) } },
  success: { status: 200, description: 'The certificate verified', schema: CertificateVerificationSchema },
  errors: [400, 401, 402, 422, 500],
};

export const jwksSpec: RouteSpec = {
  method: 'GET',
  url: '/v2/.well-known/jwks.json',
  operationId: 'getCertificateKeys',
  summary: 'The public keys of job certificates as a JWK Set (no key needed)',
  description: 'Current and retired keys; a certificate names its key in the JWS header `kid`.',
  authenticated: false,
  success: { status: 200, description: 'The JWK Set', schema: JwksSchema },
  errors: [500],
};

export const certificateSpecs = [verifyCertificateSpec, jwksSpec];

const REASONS = {
  malformed: 'certificate_malformed',
  unknown_key: 'certificate_unknown_key',
  signature_invalid: 'certificate_signature_invalid',
} as const;

export function registerCertificateRoutes(app: FastifyInstance, ctx: RouteContext, keys: CertificateKeys): void {
  registerRoute(app, verifyCertificateSpec, [ctx.authenticate], async (request) => {
    const token = (request.params as { token: string }).token;
    const check = token.length > MAX_CERTIFICATE_LENGTH ? { ok: false as const, reason: 'malformed' as const } : await keys.verify(token);
    if (!check.ok) {
      throw new ApiError({ code: 'invalid_request', messageKey: REASONS[check.reason], details: { reason: REASONS[check.reason] } });
    }
    // Signed by one of our keys but not in the shape we sign: not one of ours, whatever it says.
    const claims = CertificateClaimsSchema.safeParse(check.claims);
    if (!claims.success) {
      throw new ApiError({ code: 'invalid_request', messageKey: REASONS.malformed, details: { reason: REASONS.malformed } });
    }
    return { valid: true, kid: check.kid, claims: claims.data };
  });

  registerRoute(app, jwksSpec, [], async (_request, reply) => {
    // Verifiers may cache it a while; a rotated-in key appears within five minutes.
    reply.header('Cache-Control', 'public, max-age=300');
    return keys.jwks();
  });
}
