/**
 * docs/decisions.md §10 certificates end to end, written once and run on both deployments
 * (pipeline.embedded.test.ts, pipeline.distributed.test.ts): a done job carries a certificate on
 * the job and in its callback; the API verifies it, refuses it tampered or signed by a key it does
 * not know (da and en); openssl accepts it with the JWKS key; a key rotation leaves old
 * certificates valid; the certificate outlives the job's deletion.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { expect } from 'vitest';
import { signJws } from '../../services/platform/keys/jws.ts';
import { opensslVerifiesJws } from '../support/openssl-jws.ts';
import { mixedRows } from '../support/pipeline.ts';
import { api, expectOneCallback, isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';

type Json = Record<string, any>;

async function verify(d: Deployment, token: string, language = 'en'): Promise<{ status: number; json: Json }> {
  const response = await fetch(new URL(`/v2/certificates/${token}`, d.baseUrl), {
    headers: { Authorization: `Bearer ${d.liveKey}`, 'Accept-Language': language },
  });
  return { status: response.status, json: (await response.json()) as Json };
}

async function jwks(d: Deployment): Promise<Array<{ kid: string; x: string }>> {
  const response = await fetch(new URL('/v2/.well-known/jwks.json', d.baseUrl)); // no key: public
  expect(response.status).toBe(200);
  return ((await response.json()) as { keys: Array<{ kid: string; x: string }> }).keys;
}

const kidOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as { kid: string }).kid;

async function doneJob(d: Deployment, path: string): Promise<{ job: Json; sha256: string }> {
  const body = JSON.stringify({ people: mixedRows(30).map((r) => r.person), callback_url: d.receiver.url(path) });
  const response = await fetch(new URL('/v2/check-jobs', d.baseUrl), {
    method: 'POST', headers: { Authorization: `Bearer ${d.liveKey}`, 'Content-Type': 'application/json' }, body,
  });
  expect(response.status).toBe(202);
  const created = (await response.json()) as Json;
  expect(created.certificate_token).toBeNull();
  const job = await waitForJob(d, created.id, isFinished);
  return { job, sha256: createHash('sha256').update(body).digest('hex') };
}

export async function certificateScenario(d: Deployment, rotateKey: () => Promise<string>): Promise<void> {
  const { job, sha256 } = await doneJob(d, 'certificate-1');
  expect(job.status).toBe('done');
  const token = job.certificate_token as string;
  expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  const [callback] = await expectOneCallback(d, 'certificate-1', job, 'check_job.completed');
  expect(JSON.parse(callback.body).certificate_token).toBe(token);

  const valid = await verify(d, token);
  expect(valid.status).toBe(200);
  expect(valid.json).toEqual({
    valid: true,
    kid: kidOf(token),
    claims: {
      job_id: job.id, org_id: expect.any(String), list_version: job.list_version, row_count: 30,
      counts: { allowed: job.allowed_count, blocked: job.blocked_count, manual: job.manual_count, level_counts: job.level_counts },
      input_sha256: sha256, finished_at: job.finished_at, iat: Math.floor(Date.parse(job.finished_at) / 1000),
    },
  });

  // One byte of the claims changed: refused, in the caller's language.
  const [h, p, s] = token.split('.');
  const edited = Buffer.from(Buffer.from(p, 'base64url').toString().replace('"row_count":30', '"row_count":31')).toString('base64url');
  for (const [language, words] of [['en', /changed after it was issued/], ['da', /ændret efter udstedelsen/]] as const) {
    const tampered = await verify(d, `${h}.${edited}.${s}`, language);
    expect(tampered.status).toBe(422);
    expect(tampered.json.error).toMatchObject({ code: 'invalid_request', details: { reason: 'certificate_signature_invalid' } });
    expect(tampered.json.error.message).toMatch(words);
  }
  // The same claims signed by a key that is not ours.
  const stranger = generateKeyPairSync('ed25519').privateKey;
  const forged = signJws(JSON.parse(Buffer.from(p, 'base64url').toString()), { kid: 'not-ours', privateKey: stranger });
  const unknown = await verify(d, forged, 'da');
  expect(unknown.status).toBe(422);
  expect(unknown.json.error.details).toEqual({ reason: 'certificate_unknown_key' });
  expect(unknown.json.error.message).toMatch(/nøgle/);
  expect((await verify(d, 'garbage')).json.error.details).toEqual({ reason: 'certificate_malformed' });

  // An outside verifier: openssl with the key published in the JWKS.
  const published = await jwks(d);
  const key = published.find((k) => k.kid === kidOf(token));
  expect(key).toBeDefined();
  expect(await opensslVerifiesJws(token, key!.x)).toBe(true);
  expect(await opensslVerifiesJws(`${h}.${edited}.${s}`, key!.x)).toBe(false);

  // Rotation: the next job is signed with the new key; the old certificate still verifies.
  const newKid = await rotateKey();
  const second = await doneJob(d, 'certificate-2');
  expect(kidOf(second.job.certificate_token)).toBe(newKid);
  expect((await verify(d, second.job.certificate_token)).status).toBe(200);
  expect((await verify(d, token)).status).toBe(200);
  expect((await jwks(d)).map((k) => k.kid)).toEqual(expect.arrayContaining([kidOf(token), newKid]));

  // Deletion removes the personal data, not the proof.
  const deleted = await api(d, 'DELETE', `/v2/check-jobs/${job.id}`);
  expect(deleted.json.status).toBe('deleted');
  expect(deleted.json.certificate_token).toBe(token);
  expect((await verify(d, token)).json.claims.job_id).toBe(job.id);
}
