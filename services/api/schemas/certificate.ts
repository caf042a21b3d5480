import { z } from 'zod';
import { LevelCountsSchema } from './check-job.ts';
import { ListVersionRefSchema } from './list-version-ref.ts';
import { named } from './registry.ts';

/** docs/decisions.md §10: what a job certificate signs (services/domain/certificate.ts). */
export const CertificateClaimsSchema = named(
  'CertificateClaims',
  z.strictObject({
    job_id: z.uuid(),
    org_id: z.string(),
    list_version: ListVersionRefSchema,
    row_count: z.int().min(0),
    counts: z.strictObject({
      allowed: z.int().min(0),
      blocked: z.int().min(0),
      manual: z.int().min(0),
      level_counts: LevelCountsSchema,
    }),
    input_sha256: z.string().regex(/^[0-9a-f]{64}$/).describe('SHA-256 (hex) of the input as submitted'),
    finished_at: z.iso.datetime({ offset: true }),
    iat: z.int().describe('Issue time, seconds since 1970 (finished_at)'),
  }),
  'What a job certificate proves: the job, its list version, row count, counts and input hash. No personal data.',
);

export const CertificateVerificationSchema = named(
  'CertificateVerification',
  z.strictObject({
    valid: z.literal(true),
    kid: z.string().describe('The key that signed it (a key of /v2/.well-known/jwks.json)'),
    claims: CertificateClaimsSchema,
  }),
  'A certificate whose signature verified, and what it states.',
);

const JwkSchema = z.strictObject({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});

export const JwksSchema = named(
  'JsonWebKeySet',
  z.strictObject({ keys: z.array(JwkSchema) }),
  'Every public key that verifies job certificates (RFC 7517), current and retired.',
);
