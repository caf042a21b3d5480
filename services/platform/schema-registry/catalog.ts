import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';

/**
 * The schemas of schemas/ with their pinned ids (schemas/registry.json), loaded once at boot.
 * Checks on load: ids unique, versions of a subject 1..n without gaps, each file's record full
 * name matching its subject, so a mistake in registry.json stops the process at start.
 */
const SCHEMAS_DIR = new URL('../../../schemas/', import.meta.url).pathname;

export interface CatalogEntry {
  id: number;
  subject: string;
  version: number;
  file: string;
  /** The schema as JSON text (what a Confluent registry stores). */
  text: string;
  type: avro.Type;
}

export interface SchemaCatalog {
  entries: CatalogEntry[];
  byId: Map<number, CatalogEntry>;
  /** Versions of each subject, oldest first. */
  bySubject: Map<string, CatalogEntry[]>;
  latest(subject: string): CatalogEntry | undefined;
}

interface RegistryFile {
  schemas: Array<{ id: number; subject: string; version: number; file: string }>;
}

export function loadSchemaCatalog(dir = SCHEMAS_DIR): SchemaCatalog {
  const registry = JSON.parse(readFileSync(join(dir, 'registry.json'), 'utf8')) as RegistryFile;
  const entries: CatalogEntry[] = registry.schemas.map((pinned) => {
    const text = readFileSync(join(dir, pinned.file), 'utf8');
    const type = avro.Type.forSchema(JSON.parse(text));
    if (!pinned.subject.endsWith(`-${type.name}`)) {
      throw new Error(`schemas/${pinned.file}: record ${type.name} does not belong to subject ${pinned.subject}`);
    }
    return { ...pinned, text: JSON.stringify(JSON.parse(text)), type };
  });
  const byId = new Map<number, CatalogEntry>();
  const bySubject = new Map<string, CatalogEntry[]>();
  for (const entry of entries) {
    if (byId.has(entry.id)) throw new Error(`schemas/registry.json: id ${entry.id} used twice`);
    byId.set(entry.id, entry);
    const versions = bySubject.get(entry.subject) ?? [];
    if (entry.version !== versions.length + 1) {
      throw new Error(`schemas/registry.json: ${entry.subject} version ${entry.version} follows version ${versions.length}`);
    }
    versions.push(entry);
    bySubject.set(entry.subject, versions);
  }
  return { entries, byId, bySubject, latest: (subject) => bySubject.get(subject)?.at(-1) };
}
