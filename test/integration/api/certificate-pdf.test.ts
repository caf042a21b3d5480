/**
 * GET /v2/check-jobs/{id}/certificate.pdf: the certificate as a PDF people read
 * (docs/privacy-and-proof.md "Certificates"). A file job is uploaded, started and completed as the
 * pipeline would (the matcher's pure step, the store, the token signed with the service's own
 * certificate keys); the PDF's text is read back by Debian's pdftotext (poppler-utils), an
 * independent reader, and checked line by line against the job and the token.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { certificatePdf, tokenLines } from '../../../services/api/certificate-pdf.ts';
import { certificateClaims } from '../../../services/domain/certificate.ts';
import { matchChunk } from '../../../services/matcher/match-chunk.ts';
import { createCertificateKeys } from '../../../services/platform/keys/certificate-keys.ts';
import type { StoredKey } from '../../../services/platform/store/keyring-port.ts';
import type { FormPart } from '../../support/multipart.ts';
import { bearer, errorOf } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

const run = promisify(execFile);

/** The text of a PDF as pdftotext lays it out (`-layout` off: reading order, one line per line). */
async function pdfText(bytes: Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'certificate-pdf-'));
  try {
    await writeFile(join(dir, 'c.pdf'), bytes);
    const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', join(dir, 'c.pdf'), '-']);
    return stdout;
  } catch (error) {
    throw new Error(`pdftotext is needed (bash infra/local/poppler.sh start): ${(error as Error).message}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const CSV = Buffer.from([
  'Kundenr.;Navn;Adresse;Postnr.;By',
  'K-1;Anne Robinson;Vestergade 1;8000;Aarhus C',
  'K-2;Bo Jensen;Vestergade 2;8000;Aarhus C',
  'K-3;Carl Husstand;Vestergade 3;8000;Aarhus C',
].join('\r\n'));

async function certifiedJob() {
  const s = await uploadsApi();
  const stored: StoredKey[] = [];
  const keys = createCertificateKeys({ keyring: { listKeys: async () => stored, addKey: async (k) => { stored.push(k); } } });
  const parts: FormPart[] = [{ name: 'file', value: { bytes: CSV, filename: 'Kunder marts.csv' } }];
  const draft = (await s.upload(s.orgA.testKey, parts)).json<Record<string, any>>();
  const started = await s.app.inject({ method: 'POST', url: `/v2/check-jobs/${draft.id}/start`, headers: bearer(s.orgA.testKey) });
  expect(started.statusCode, started.body).toBe(202);
  const notYet = await s.app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}/certificate.pdf`, headers: { ...bearer(s.orgA.testKey), 'accept-language': 'en' } });
  expect(notYet.statusCode).toBe(409);
  expect(errorOf(notYet)).toMatchObject({ code: 'conflict', details: { reason: 'certificate_not_ready', status: 'queued' } });
  expect(errorOf(notYet).message).toContain('no certificate yet');
  const events = await s.log.decoded();
  const chunks = events.filter((e) => e.type === 'RowsChunk' && (e.value as { job_id: string }).job_id === draft.id).map((e) => e.value);
  const record = (await s.jobs.getJobById(draft.id))!;
  for (const chunk of chunks) {
    const results = matchChunk(chunk as Parameters<typeof matchChunk>[0], null).results;
    await s.jobs.putResults(draft.id, record.delete_after, results.map((r) => ({ row: r.row, result: r.result, cells: r.cells })));
  }
  const finishedAt = '2026-03-02T10:15:30.000Z';
  const counted = { row_count: 3, processed_count: 3, blocked_count: 1, allowed_count: 1, manual_count: 1, level_counts: { '0': 1, '1': 1, '2': 0, '3': 0, '4': 0, '5': 1, unread: 0 } };
  const claims = certificateClaims({ ...record, ...counted }, finishedAt)!;
  const token = await keys.sign(claims);
  await s.jobs.updateJob(draft.id, { ...counted, status: 'done', finished_at: finishedAt, certificate_token: token });
  return { ...s, id: draft.id as string, token, claims };
}

describe('GET /v2/check-jobs/{id}/certificate.pdf', () => {
  it('a PDF in Danish with the organisation, file, counts, list version and its date, time, and the token to verify', async () => {
    const { app, orgA, id, token, claims } = await certifiedJob();
    const response = await app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/certificate.pdf`, headers: bearer(orgA.testKey) });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toContain('Kunder marts.certificate.pdf');
    expect(response.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(response.rawPayload);
    const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    expect(lines[0]).toBe('Certifikat for tjek mod Robinsonlisten');
    expect(lines).toContain(`Organisation: ${orgA.org.name}`);
    expect(lines).toContain('Fil: Kunder marts.csv');
    expect(lines).toContain('Kilde: upload');
    expect(lines).toContain(`Job-id: ${id}`);
    expect(lines).toContain('Tjekket: 2026-03-02 10:15:30 UTC');
    expect(lines).toContain(`Listeversion: udgivet 2026-01-01 (${claims.list_version.id})`);
    expect(lines).toContain('Rækker: 3');
    expect(lines).toContain('Blokeret: 1');
    expect(lines).toContain('Tilladt: 1');
    expect(lines).toContain('Manuel vurdering: 1');
    expect(lines).toContain('Rækker pr. matchniveau: 0: 1, 1: 1, 2: 0, 3: 0, 4: 0, 5: 1, ulæst: 0');
    expect(lines[lines.indexOf('SHA-256 af den indsendte fil:') + 1]).toBe(claims.input_sha256);
    expect(lines).toContain('Sådan efterprøves certifikatet');
    expect(lines).toContain('Offentlige nøgler: http://localhost:80/v2/.well-known/jwks.json');
    // The token, printed in pieces, is the certificate's own token, whole.
    const printed = lines.slice(lines.indexOf('Underskrevet token:') + 1).join('');
    expect(printed).toBe(token);
    // The verification link carries the whole token (a link annotation of the PDF).
    expect(response.rawPayload.toString('latin1')).toContain(`/v2/certificates/${token}`);
  });

  it('a token with a hyphen where a line would end is read back whole: no printed line ends with "-"', async () => {
    const { claims } = await certifiedJob();
    const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    // A signature part whose hyphens fall at every place a 90-character line would end, and a run of them.
    const prefix = `${header}.${payload}.`;
    const signature = Array.from({ length: 300 }, (_, i) => ((prefix.length + i) % 90 === 89 || (i > 200 && i < 210) ? '-' : 'A')).join('');
    const token = prefix + signature;
    const lines = tokenLines(token);
    expect(lines.join('')).toBe(token);
    expect(lines.every((line) => line.length <= 90 && !line.endsWith('-'))).toBe(true);
    const text = await pdfText(await certificatePdf({ token, organisation: 'Org', filename: null, source: 'api', baseUrl: 'http://localhost:80', locale: 'da' }));
    const read = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    expect(read.slice(read.indexOf('Underskrevet token:') + 1).join('')).toBe(token);
  });

  it('in English with Accept-Language: en; the same PDF after the job is deleted; 404 for another organisation', async () => {
    const { app, orgA, orgB, id } = await certifiedJob();
    const get = (key: string) => app.inject({ method: 'GET', url: `/v2/check-jobs/${id}/certificate.pdf`, headers: { ...bearer(key), 'accept-language': 'en' } });
    const english = await get(orgA.testKey);
    const text = await pdfText(english.rawPayload);
    expect(text).toContain('Certificate of a check against the Robinson list');
    expect(text).toContain('List version: published 2026-01-01');
    expect(text).toContain('Manual review: 1');
    await app.inject({ method: 'DELETE', url: `/v2/check-jobs/${id}`, headers: bearer(orgA.testKey) });
    const after = await get(orgA.testKey);
    expect(after.statusCode).toBe(200);
    expect(after.rawPayload.equals(english.rawPayload), 'a certificate is the same document whenever it is fetched').toBe(true);
    expect((await get(orgB.testKey)).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/v2/check-jobs/not-a-uuid/certificate.pdf', headers: bearer(orgA.testKey) })).statusCode).toBe(404);
  });
});
