/**
 * Text that is not Unicode never gets in (docs/api-decisions.md "Unicode"): a `\ud800` escape (a
 * lone surrogate) and bytes that are not UTF-8 are 400 in the contract's error shape, in the
 * caller's language, on the parsed routes (POST /v2/checks) and the streamed ones (JSON and NDJSON
 * check jobs, monitors), and nothing is created, so no answer can ever echo them.
 */
import { describe, expect, it } from 'vitest';
import { bearer, errorOf } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

type Json = Record<string, any>;
const LONE = '"Karen \\ud800 Jensen"';
const person = (name: string) => `{"name":${name},"address":"Østergade 1, 8000 Aarhus C"}`;
const latin1 = Buffer.from(`{"people":[{"name":"S\xf8ren Jensen","address":"Vestergade 1, 8000 Aarhus C"}]}`, 'latin1');

describe('lone surrogates and invalid UTF-8 are refused with 400, nothing created', () => {
  const send = async (api: Awaited<ReturnType<typeof uploadsApi>>, key: string, url: string, type: string, payload: string | Buffer, locale = 'en') =>
    api.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': type, 'accept-language': locale }, payload });

  it('POST /v2/checks: 400 invalid_json for a lone surrogate, 400 invalid_utf8 for Latin-1 bytes (da and en)', async () => {
    const api = await uploadsApi();
    const lone = await send(api, api.orgA.testKey, '/v2/checks', 'application/json', `{"people":[${person(LONE)}]}`);
    expect(lone.statusCode, lone.body).toBe(400);
    expect(errorOf(lone)).toMatchObject({ code: 'invalid_request', details: { reason: 'invalid_json' } });
    expect(errorOf(lone).request_id).toBe(lone.headers['request-id']);
    const bytes = await send(api, api.orgA.testKey, '/v2/checks', 'application/json', latin1, 'da');
    expect(bytes.statusCode, bytes.body).toBe(400);
    expect(errorOf(bytes)).toMatchObject({ code: 'invalid_request', message: 'Forespørgslens indhold er ikke gyldig UTF-8.', details: { reason: 'invalid_utf8' } });
    expect(bytes.body).not.toContain('ren Jensen');
  });

  it('check jobs (JSON, NDJSON, a job field) and monitors: 400, no job or monitor, the job list parses', async () => {
    const api = await uploadsApi();
    const key = api.orgA.testKey;
    for (const [url, type, payload] of [
      ['/v2/check-jobs', 'application/json', `{"people":[${person(LONE)}]}`],
      ['/v2/check-jobs', 'application/json', `{"external_ref":"ref \\udc00","people":[${person('"Karen Jensen"')}]}`],
      ['/v2/check-jobs', 'application/x-ndjson', `${person(LONE)}\n`],
      ['/v2/check-jobs', 'application/json', latin1],
      ['/v2/monitors', 'application/json', `{"people":[${person(LONE)}]}`],
    ] as const) {
      const response = await send(api, key, url, type, payload);
      expect(response.statusCode, `${url} ${type}: ${response.body}`).toBe(400);
      expect(['invalid_json', 'invalid_utf8']).toContain(errorOf(response).details?.reason);
    }
    expect(await api.allJobs()).toEqual([]);
    const list = await api.app.inject({ method: 'GET', url: '/v2/check-jobs', headers: bearer(key) });
    expect(list.json<Json>().data).toEqual([]);
    const monitors = await api.app.inject({ method: 'GET', url: '/v2/monitors', headers: bearer(key) });
    expect(monitors.json<Json>().monitors).toEqual([]);
  });
});
