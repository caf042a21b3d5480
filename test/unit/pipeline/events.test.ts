import { describe, expect, it } from 'vitest';
import {
  createPipelineEvents, fromAvroPerson, keyOf, TOPICS, toAvroPerson, UnknownEventError,
  type EventMessage, type PipelineEvent,
} from '../../../services/pipeline/events.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { frame } from '../../../services/platform/schema-registry/port.ts';
import { loadSchemaCatalog } from '../../../services/platform/schema-registry/catalog.ts';
import { sampleEvents } from '../../fixtures/events.ts';

const catalog = loadSchemaCatalog();
const registry = createStaticSchemaRegistry(catalog);

function memoryLog() {
  const appended: Array<{ topic: string; messages: EventMessage[] }> = [];
  return { appended, log: { publish: async (topic: string, messages: EventMessage[]) => void appended.push({ topic, messages }) } };
}

const sample = (type: PipelineEvent['type']): PipelineEvent => {
  const subject = Object.keys(sampleEvents).find((s) => s.endsWith(`.${type}`))!;
  return { type, value: sampleEvents[subject] } as PipelineEvent;
};

describe('pipeline events', () => {
  const types = ['JobCreated', 'RowsChunk', 'RowsComplete', 'JobStateChanged', 'ResultsChunk', 'CheckUsage'] as const;

  it.each(types)('%s round-trips through publish and decode as a plain object', async (type) => {
    const { appended, log } = memoryLog();
    const events = createPipelineEvents({ log, registry });
    await events.publish(sample(type));
    expect(appended).toHaveLength(1);
    const decoded = await events.decode(appended[0].messages[0].value);
    expect(decoded.type).toBe(type);
    expect(JSON.parse(JSON.stringify(decoded.value))).toEqual(decoded.value);
    if (type !== 'ResultsChunk') expect(decoded.value).toEqual(sample(type).value);
  });

  it('keys: jobs by job id, rows by job id and chunk, usage by organisation', () => {
    const rows = sample('RowsChunk');
    expect(keyOf(rows)).toBe(`${(rows.value as { job_id: string }).job_id}:0`);
    expect(keyOf(sample('JobCreated'))).toBe((sampleEvents['jobs.events-dk.robinson.jobs.JobCreated'] as { job_id: string }).job_id);
    expect(keyOf(sample('ResultsChunk'))).toBe(keyOf(sample('JobCreated')));
    expect(keyOf(sample('CheckUsage'))).toBe((sampleEvents['usage.events-dk.robinson.usage.CheckUsage'] as { org_id: string }).org_id);
  });

  it('groups consecutive events per topic and keeps the order of topics', async () => {
    const { appended, log } = memoryLog();
    const events = createPipelineEvents({ log, registry });
    await events.publish([sample('JobCreated'), sample('RowsChunk'), sample('RowsChunk'), sample('RowsComplete')]);
    expect(appended.map((a) => [a.topic, a.messages.length])).toEqual([
      [TOPICS.jobsEvents, 1], [TOPICS.checksRows, 2], [TOPICS.jobsEvents, 1],
    ]);
  });

  it('prefixes topic names for the deployment, never the subjects', async () => {
    const { appended, log } = memoryLog();
    const events = createPipelineEvents({ log, registry, topicPrefix: 't1.' });
    await events.publish([sample('JobCreated'), sample('RowsChunk')]);
    expect(appended.map((a) => a.topic)).toEqual(['t1.jobs.events', 't1.checks.rows']);
    expect((await events.decode(appended[1].messages[0].value)).type).toBe('RowsChunk');
  });

  it('decodes phone lookups without nulls, in the domain shape', async () => {
    const { appended, log } = memoryLog();
    const events = createPipelineEvents({ log, registry });
    await events.publish(sample('ResultsChunk'));
    const decoded = await events.decode(appended[0].messages[0].value);
    if (decoded.type !== 'ResultsChunk') throw new Error('wrong type');
    expect(decoded.value.results[1].result.phone_lookup).toEqual({ outcome: 'unlisted' });
  });

  it('reads a v4 RowsChunk with the v5 defaults: a person check only, no company fields', async () => {
    const [, , , v4] = catalog.bySubject.get('checks.rows-dk.robinson.checks.RowsChunk')!;
    const events = createPipelineEvents({ log: memoryLog().log, registry });
    const person = toAvroPerson({ name: 'Søren Ærø' }) as Record<string, unknown>;
    delete person.cvr;
    delete person.company_name;
    const old = { job_id: 'j', chunk: 1, rows: [{ row: 0, person, cells: null }], org_id: 'o', mode: 'test', list_version_id: null, policy: 'strict', stop_level: 2, locale: 'en', private_list_version_id: 'p', data_key_id: null, sealed_rows: null };
    const decoded = await events.decode(frame(v4.id, v4.type.toBuffer(old)));
    expect(decoded.value).toEqual({
      ...old, rows: [{ row: 0, person: { ...person, cvr: null, company_name: null }, cells: null }],
      check_people: true, check_companies: false, check_phones: false, company_register_version_id: null, phone_directory_version_id: null, address_register_version_id: null, person_cells: null,
    });
  });

  it('reads a v5 RowsChunk (before address register pins) as checked on text alone: no register version', async () => {
    const [, , , , v5] = catalog.bySubject.get('checks.rows-dk.robinson.checks.RowsChunk')!;
    const events = createPipelineEvents({ log: memoryLog().log, registry });
    const { address_register_version_id: pinned, ...old } = sampleEvents['checks.rows-dk.robinson.checks.RowsChunk'] as Record<string, unknown>;
    expect(pinned).toMatch(/^[0-9a-f-]{36}$/);
    const decoded = await events.decode(frame(v5.id, v5.type.toBuffer(old)));
    expect(decoded.value).toEqual({ ...old, address_register_version_id: null, person_cells: null });
  });

  it('reads a v1 ResultsChunk with no company, and leaves a null company out of the result', async () => {
    const [v1] = catalog.bySubject.get('checks.results-dk.robinson.checks.ResultsChunk')!;
    const events = createPipelineEvents({ log: memoryLog().log, registry });
    const value = sampleEvents['checks.results-dk.robinson.checks.ResultsChunk'] as { results: Array<{ result: Record<string, unknown> }> };
    const old = { ...value, results: value.results.slice(0, 1).map((r) => ({ ...r, result: Object.fromEntries(Object.entries(r.result).filter(([k]) => k !== 'company')) })) };
    const decoded = await events.decode(frame(v1.id, v1.type.toBuffer(old)));
    const [first] = (decoded.value as { results: Array<{ result: object }> }).results;
    expect(JSON.parse(JSON.stringify(first.result))).not.toHaveProperty('company');
    const latest = await events.decode((await events.encode(sample('ResultsChunk'))).message.value);
    const results = (latest.value as { results: Array<{ result: { company?: unknown } }> }).results;
    expect(results[2].result.company).toMatchObject({ cvr: '10000009', status: 'blocked', reasons: ['company_protected'] });
  });

  it('reads a v1 RowsChunk with the v2, v3, v4 and v5 defaults (nothing sealed)', async () => {
    const [v1] = catalog.bySubject.get('checks.rows-dk.robinson.checks.RowsChunk')!;
    const events = createPipelineEvents({ log: memoryLog().log, registry });
    const old = { job_id: 'j', chunk: 3, rows: [] };
    const decoded = await events.decode(frame(v1.id, v1.type.toBuffer(old)));
    expect(decoded).toEqual({
      type: 'RowsChunk',
      value: {
        ...old, org_id: null, mode: 'live', list_version_id: null, policy: 'standard', stop_level: 1, locale: 'da', private_list_version_id: null,
        data_key_id: null, sealed_rows: null,
        check_people: true, check_companies: false, check_phones: false, company_register_version_id: null, phone_directory_version_id: null, address_register_version_id: null, person_cells: null,
      },
    });
  });

  it('reads a v2 RowsChunk (before private lists) as checking the national list only', async () => {
    const v2 = catalog.bySubject.get('checks.rows-dk.robinson.checks.RowsChunk')![1];
    const events = createPipelineEvents({ log: memoryLog().log, registry });
    const old = { job_id: 'j', chunk: 0, rows: [], org_id: 'o', mode: 'live', list_version_id: 'v', policy: 'strict', stop_level: 2, locale: 'en' };
    const decoded = await events.decode(frame(v2.id, v2.type.toBuffer(old)));
    expect(decoded).toEqual({
      type: 'RowsChunk',
      value: {
        ...old, private_list_version_id: null, data_key_id: null, sealed_rows: null,
        check_people: true, check_companies: false, check_phones: false, company_register_version_id: null, phone_directory_version_id: null, address_register_version_id: null, person_cells: null,
      },
    });
  });

  it('refuses a message of another subject', async () => {
    const v1 = catalog.bySubject.get('lists.versions-dk.robinson.lists.ListVersionActivated')![0];
    const events = createPipelineEvents({ log: memoryLog().log, registry });
    const value = sampleEvents['lists.versions-dk.robinson.lists.ListVersionActivated'];
    await expect(events.decode(frame(v1.id, v1.type.toBuffer(value)))).rejects.toBeInstanceOf(UnknownEventError);
  });

  it('converts people to the Avro record and back', () => {
    const person = { name: 'Søren Ærø', address: 'Vestergade 1, 8000 Aarhus C' };
    const avro = toAvroPerson(person);
    expect(avro.first_name).toBeNull();
    expect(Object.keys(avro)).toHaveLength(15);
    expect(avro.cvr).toBeNull();
    expect(fromAvroPerson(toAvroPerson({ ...person, cvr: '10000009', company_name: 'Ærø ApS' }))).toEqual({ ...person, cvr: '10000009', company_name: 'Ærø ApS' });
    expect(fromAvroPerson(avro)).toEqual(person);
  });
});
