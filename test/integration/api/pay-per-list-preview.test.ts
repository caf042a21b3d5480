/**
 * A pay-per-list organisation's draft previews give no verdicts (docs/uploads.md "Previews of
 * pay-per-list drafts"): the list's answer is what the job's price pays for, and an organisation
 * without an API agreement is refused POST /v2/checks (402), so a draft of 20 rows must not be a free
 * check of 20 people. The reading stays: cells, the address as resolved, the rows that cannot be
 * checked. The same file from an annual organisation, and from the pay-per-list one's test key,
 * shows verdicts, so the test fails if the withholding is lost or spreads.
 */
import { describe, expect, it } from 'vitest';
import type { FormPart } from '../../support/multipart.ts';
import { bearer, LIVE_ENTRIES } from './helper.ts';
import { uploadsApi } from './uploads-api.ts';

type Json = Record<string, any>;

// Søren Kjær is on the live list (helper.ts LIVE_ENTRIES); the second row has no name.
const csv = Buffer.from('Navn,Adresse\r\nSøren Kjær,"Vestergade 12, 2. tv, 8000 Aarhus C"\r\n,"Nørregade 3, 1000 København K"\r\nSøren Robinson,"Vestergade 12, 2. tv, 8000 Aarhus C"\r\n');
const file: FormPart = { name: 'file', value: { bytes: csv, filename: 'kunder.csv' } };

describe('the preview of a pay-per-list draft', () => {
  it('shows how each row is read but withholds the verdict, on upload, on POST …/preview and on GET; annual and test previews keep theirs', async () => {
    const api = await uploadsApi({ liveEntries: LIVE_ENTRIES });

    const annual = (await api.upload(api.orgA.liveKey, [file])).json<Json>();
    expect(annual.preview[0].result).toMatchObject({ status: 'blocked', match: { level: 5 } });

    for (const org of [api.payPerList, api.payPerListWithAgreement]) {
      const upload = await api.upload(org.liveKey, [file], { 'accept-language': 'en' });
      expect(upload.statusCode).toBe(202);
      const draft = upload.json<Json>();
      expect(draft.status).toBe('draft');
      const [listed, nameless] = draft.preview.map((row: Json) => row.result);
      expect(listed).toMatchObject({
        status: 'manual', reasons: [], level: null, phone_lookup: null,
        match: { level: null, code: null, label: 'Checked once the job is paid for', on: [], previous_address: false },
      });
      // The reading is kept: the address as resolved, and the row that cannot be checked.
      expect(listed.address).toEqual(annual.preview[0].result.address);
      expect(nameless).toMatchObject({ status: 'manual', reasons: ['no_name'], match: { level: null } });
      expect(draft.preview[0].cells).toEqual(['Søren Kjær', 'Vestergade 12, 2. tv, 8000 Aarhus C']);

      const again = await api.app.inject({
        method: 'POST', url: `/v2/check-jobs/${draft.id}/preview`, payload: { column_mapping: { name: 0, address: 1 } },
        headers: { ...bearer(org.liveKey), 'content-type': 'application/json', 'accept-language': 'da' },
      });
      expect(again.statusCode).toBe(200);
      expect(again.json<Json>().preview[0].result).toMatchObject({ status: 'manual', reasons: [], match: { level: null, label: 'Tjekkes, når jobbet er betalt' } });
      const read = (await api.app.inject({ method: 'GET', url: `/v2/check-jobs/${draft.id}`, headers: bearer(org.liveKey) })).json<Json>();
      expect(read.preview.map((row: Json) => row.result.match.level)).toEqual([null, null, null]);
      expect(JSON.stringify(read)).not.toMatch(/name_and_unit|"blocked"|"allowed"/);
    }

    // Test keys never touch the list: their fixed answers stay (Robinson is level 5).
    const test = (await api.upload(api.payPerList.testKey, [file])).json<Json>();
    expect(test.preview[2].result).toMatchObject({ status: 'blocked', match: { level: 5 } });
  });
});
