/**
 * Private lists (docs/decisions.md §16, docs/matching.md "Private lists"), written once against a running
 * deployment over real HTTP and run on both deployments: the organisation's own list is imported
 * as a CSV through the real importer and activated; with `use_private_list` a person on it is
 * blocked with the reason of the match whatever the national result, in a synchronous check and
 * in a job (through the matchers), identically; without the flag nothing changes.
 */
import { expect } from 'vitest';
import { createOrganisation } from '../../services/admin/organisations.ts';
import { issueApiKey } from '../../services/admin/keys.ts';
import type { PersonInput } from '../../services/domain/types.ts';
import { importListVersion } from '../../services/registers/lists/import.ts';
import { silentLogger } from '../../services/platform/logger.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import { api, isFinished, waitForJob, type Deployment } from './pipeline-scenarios.ts';
import { waitForMonitor } from './monitors-scenarios.ts';

type Json = Record<string, any>;

/** The organisation's own list, as a customer writes it (semicolons, Danish headers). */
const PRIVATE_CSV = 'Navn;Adresse\r\nÅse Østergård;Vestergade 3, 5000 Odense\r\nIb Berg;Strandvejen 100, 2900 Hellerup\r\n';

/** Each person, and what they get without and with the private list (national list: test/support/pipeline LIST_ENTRIES). */
const PEOPLE: Array<{ person: PersonInput; without: [string, number | null]; with: [string, number | null, string[]] }> = [
  // On the private list only: blocked with the reason of the private match.
  { person: { id: 'p1', name: 'Åse Østergård', address: 'Vestergade 3, 5000 Odense' }, without: ['allowed', 0], with: ['blocked', 5, ['name_and_unit']] },
  // On the national list only: unchanged.
  { person: { id: 'p2', name: 'Anne Hansen', address: 'Nørregade 7, 2. th, 5000 Odense' }, without: ['blocked', 5], with: ['blocked', 5, ['name_and_unit']] },
  // On both.
  { person: { id: 'p3', name: 'Ib Berg', address: 'Strandvejen 100, 2900 Hellerup' }, without: ['blocked', 5], with: ['blocked', 5, ['name_and_unit']] },
  // The surname matches a private entry at her unit: level 2 ≥ the stop line 1 → blocked (partial_name).
  { person: { id: 'p4', name: 'Karl Østergård', address: 'Vestergade 3, 5000 Odense' }, without: ['allowed', 0], with: ['blocked', 2, ['partial_name']] },
  // A household-only private match does not block (standard policy: manual): the national result stands.
  { person: { id: 'p5', name: 'Peter Jensen', address: 'Vestergade 3, 5000 Odense' }, without: ['allowed', 0], with: ['allowed', 0, []] },
  { person: { id: 'p6', name: 'Jens Jensen', address: 'Vestergade 9, 5000 Odense' }, without: ['allowed', 0], with: ['allowed', 0, []] },
];

export async function importPrivateList(platform: Platform, orgId: string): Promise<string> {
  const { version } = await importListVersion({ listStore: platform.lists, logger: silentLogger() }, {
    source: 'customer', format: 'csv', orgId, chunks: (async function* () { yield Buffer.from(PRIVATE_CSV, 'utf8'); })(),
  });
  await platform.lists.activateListVersion(version.id, new Date().toISOString());
  return version.id;
}

export async function orgIdOfKey(platform: Platform, key: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  const record = await platform.accounts.findKeyByHash(createHash('sha256').update(key).digest('hex'));
  return (record as { org_id: string }).org_id;
}

const summary = (r: Json) => [r.status, r.match.level, r.reasons];

export async function privateListSyncCheck(d: Deployment): Promise<Json[]> {
  const people = PEOPLE.map((p) => p.person);
  const plain = await api(d, 'POST', '/v2/checks', { people });
  expect(plain.status, plain.text).toBe(200);
  expect(plain.json.results.map((r: Json) => [r.status, r.match.level])).toEqual(PEOPLE.map((p) => p.without));

  const withList = await api(d, 'POST', '/v2/checks', { people, use_private_list: true });
  expect(withList.status, withList.text).toBe(200);
  expect(withList.json.results.map(summary)).toEqual(PEOPLE.map((p) => p.with));
  // Results still name the national version they were checked against; a result whose match is
  // the private list's names that (customer) version instead (docs/matching.md "Private lists"):
  // Åse (private only), Ib (on both, the private match on a tie) and Karl (private surname match).
  expect(withList.json.list_version.id).toBe(d.listVersionId);
  const own = withList.json.results.map((r: Json) => r.list_version?.source ?? null);
  expect(own).toEqual(['customer', null, 'customer', 'customer', null, null]);
  const privateVersion = withList.json.results[0].list_version;
  expect(privateVersion.id).not.toBe(d.listVersionId);
  expect(privateVersion).toMatchObject({ source: 'customer', published_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
  expect(plain.json.results.every((r: Json) => r.list_version === undefined)).toBe(true);

  // Test keys accept the flag and keep their fixed answers (they never touch real list data, §3).
  const test = await api(d, 'POST', '/v2/checks', { people: [PEOPLE[0].person], use_private_list: true }, d.testKey);
  expect(test.status, test.text).toBe(200);
  expect(test.json.results[0].status).toBe('allowed');
  return withList.json.results as Json[];
}

export async function privateListJob(d: Deployment, syncResults: Json[]): Promise<void> {
  const people = PEOPLE.map((p) => p.person);
  const created = await api(d, 'POST', '/v2/check-jobs', { people, options: { use_private_list: true } });
  expect(created.status, created.text).toBe(202);
  expect(created.json.options.use_private_list).toBe(true);
  const job = await waitForJob(d, created.json.id, isFinished);
  expect(job.status).toBe('done');
  expect(job.blocked_count).toBe(4);
  const page = await api(d, 'GET', `/v2/check-jobs/${job.id}/results`);
  expect(page.status).toBe(200);
  // The pipeline's answers are the synchronous check's, row for row.
  expect(page.json.results.map(summary)).toEqual(PEOPLE.map((p) => p.with));
  expect(page.json.results).toEqual(syncResults);
}

/** An organisation without an active private list: 422 at use_private_list, in its language, nothing created. */
export async function privateListMissing(d: Deployment, platform: Platform): Promise<void> {
  const org = await createOrganisation(platform.accounts, { name: 'no private list' });
  const key = (await issueApiKey(platform.accounts, org.id, 'live')).key;
  const other = { ...d, liveKey: key };
  for (const [path, body] of [
    ['/v2/checks', { people: [PEOPLE[0].person], use_private_list: true }],
    ['/v2/check-jobs', { people: [PEOPLE[0].person], options: { use_private_list: true } }],
  ] as const) {
    const response = await fetch(new URL(path, other.baseUrl), {
      method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Accept-Language': 'en' }, body: JSON.stringify(body),
    });
    const json = (await response.json()) as Json;
    expect(response.status, JSON.stringify(json)).toBe(422);
    expect(json.error.code).toBe('invalid_request');
    expect(json.error.details.issues[0].path).toMatch(/use_private_list$/);
    expect(json.error.details.issues[0].message).toMatch(/no active private list/);
    expect(JSON.stringify(json)).not.toContain('Østergård');
  }
  expect(await platform.jobs.listJobsDueForDeletion('9999-01-01T00:00:00.000Z', 10_000).then((jobs) => jobs.filter((j) => j.org_id === org.id))).toEqual([]);
}

/** A monitor with use_private_list: its re-check job (source monitor, through the matchers) applies the private list too. */
export async function privateListMonitor(d: Deployment): Promise<void> {
  const people = PEOPLE.map((p) => p.person);
  const created = await api(d, 'POST', '/v2/monitors', { people, use_private_list: true });
  expect(created.status, created.text).toBe(201);
  expect(created.json.use_private_list).toBe(true);
  const checked = await waitForMonitor(d, created.json.id, (m) => m.last_check !== null);
  const job = await waitForJob(d, checked.last_check.job_id, isFinished);
  expect(job).toMatchObject({ source: 'monitor', status: 'done', blocked_count: 4 });
  expect(job.options.use_private_list).toBe(true);
  const page = await api(d, 'GET', `/v2/check-jobs/${job.id}/results`);
  expect(page.json.results.map(summary)).toEqual(PEOPLE.map((p) => p.with));
}
