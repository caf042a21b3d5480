import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { loadSchemaCatalog } from '../../../services/platform/schema-registry/catalog.ts';
import {
  SchemaValidationError, UnknownSchemaIdError, UnknownSubjectError, WireFormatError, frame,
} from '../../../services/platform/schema-registry/port.ts';
import { createStaticSchemaRegistry } from '../../../services/platform/schema-registry/static.ts';
import { sampleEvents } from '../../fixtures/events.ts';

const catalog = loadSchemaCatalog();
const registry = createStaticSchemaRegistry(catalog);

describe('schemas/ and their pinned ids', () => {
  it('pins ids 1..n in file order, and every subject has a sample event', () => {
    expect(catalog.entries.map((e) => e.id)).toEqual(catalog.entries.map((_, i) => i + 1));
    expect([...catalog.bySubject.keys()].sort()).toEqual(Object.keys(sampleEvents).sort());
  });

  it('covers every pipeline topic', () => {
    const topics = new Set([...catalog.bySubject.keys()].map((s) => s.slice(0, s.indexOf('-'))));
    expect([...topics].sort()).toEqual(['checks.results', 'checks.rows', 'jobs.events', 'lists.versions', 'usage.events']);
  });

  // Backward compatible: a consumer on version n reads everything written with version n-1.
  const pairs = [...catalog.bySubject.values()].flatMap((versions) =>
    versions.slice(1).map((reader, i) => ({ writer: versions[i], reader })),
  );
  it('has at least one evolved subject to check', () => expect(pairs.length).toBeGreaterThan(0));
  it.each(pairs.map((p) => [`${p.reader.subject} v${p.writer.version}→v${p.reader.version}`, p] as const))(
    'every new version reads the previous one: %s',
    (_, { writer, reader }) => {
      expect(() => reader.type.createResolver(writer.type)).not.toThrow();
    },
  );

  it('the compatibility check catches a breaking change (a new field without default)', () => {
    const v1 = catalog.latest('usage.events-dk.robinson.usage.CheckUsage')!;
    const broken = JSON.parse(v1.text);
    broken.fields.push({ name: 'plan', type: 'string' });
    expect(() => avro.Type.forSchema(broken).createResolver(v1.type)).toThrow();
  });
});

describe('static schema registry', () => {
  it.each(Object.entries(sampleEvents))('round-trips %s in the Confluent wire format', async (subject, value) => {
    const bytes = await registry.encode(subject, value);
    const latest = catalog.latest(subject)!;
    expect(bytes[0]).toBe(0);
    expect(bytes.readUInt32BE(1)).toBe(latest.id);
    expect(bytes.subarray(5)).toEqual(latest.type.toBuffer(value));
    expect(await registry.decode(bytes)).toEqual({ subject, version: latest.version, value });
  });

  it('reads data written with an older version into the latest one, with defaults', async () => {
    const subject = 'jobs.events-dk.robinson.jobs.JobStateChanged';
    const [v1] = catalog.bySubject.get(subject)!;
    const old = { job_id: 'j', org_id: 'o', status: 'running', error: null, changed_at: '2026-02-01T09:00:00.000Z' };
    const decoded = await registry.decode(frame(v1.id, v1.type.toBuffer(old)));
    expect(decoded).toEqual({ subject, version: 2, value: { ...old, processed_count: 0, finished_at: null } });
  });

  it('refuses values that do not fit, naming the path but not the value', async () => {
    const subject = 'jobs.events-dk.robinson.jobs.RowsComplete';
    const bad = { ...(sampleEvents[subject] as object), row_count: 'Søren Ærø' };
    const error = await registry.encode(subject, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaValidationError);
    expect((error as SchemaValidationError).paths).toEqual(['row_count']);
    expect((error as Error).message).not.toContain('Søren');
  });

  it('refuses unknown subjects, unknown ids and buffers not in the wire format', async () => {
    await expect(registry.encode('nope-x.Y', {})).rejects.toBeInstanceOf(UnknownSubjectError);
    await expect(registry.decode(frame(9999, Buffer.from([1, 2])))).rejects.toBeInstanceOf(UnknownSchemaIdError);
    await expect(registry.decode(Buffer.from([1, 0, 0, 0, 1, 2]))).rejects.toBeInstanceOf(WireFormatError);
    await expect(registry.decode(Buffer.from([0, 0]))).rejects.toBeInstanceOf(WireFormatError);
  });
});
