/**
 * The canary's scanners (docs/decisions.md §10): every place a deployment may keep a job's
 * personal data, read as raw as a test can, searched for one made-up string. Each scanner returns
 * the places it found the string in (empty: nowhere). Used by test/e2e/canary-scenario.ts before a
 * deletion (it must find the string, so the search can fail) and after (it must find nothing).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kafka, logLevel } from 'kafkajs';
import { createPipelineEvents, type PipelineEvents } from '../../services/pipeline/events.ts';
import { createJobDataKeys } from '../../services/platform/keys/data-keys.ts';
import type { Platform } from '../../services/platform/open-platform.ts';
import type { ClickHouseConnection } from '../../services/platform/store/clickhouse/connection.ts';
import { sql, statement } from '../../services/platform/store/clickhouse/sql.ts';

/**
 * Pipeline events that decode with the keys the store still holds (no cache: a key deleted a
 * moment ago is not remembered), as an attacker with a copy of the store would.
 */
export function decoderWithRemainingKeys(platform: Platform, masterKeys?: string): PipelineEvents {
  const dataKeys = createJobDataKeys({ store: platform.dataKeys, keyring: platform.keys, cacheMs: 0, ...(masterKeys ? { configured: masterKeys } : {}) });
  return createPipelineEvents({ log: { publish: async () => {} }, registry: platform.registry, dataKeys });
}

/** Where in one message the string is: its raw bytes, or its content once decoded with the keys left. */
async function messageHits(canary: string, where: string, key: string | null, value: Buffer | null, decoder: PipelineEvents): Promise<string[]> {
  const hits: string[] = [];
  if (key?.includes(canary)) hits.push(`${where} key`);
  if (!value) return hits;
  if (value.includes(Buffer.from(canary))) hits.push(`${where} bytes`);
  const decoded = await decoder.decode(value).catch(() => null); // undecodable (poison): its bytes were searched
  if (decoded && JSON.stringify(decoded.value).includes(canary)) hits.push(`${where} decoded`);
  return hits;
}

/** Every file under `dir` (database files, spool, uploads, result files), byte for byte. */
export async function scanFiles(canary: string, dir: string): Promise<string[]> {
  const hits: string[] = [];
  const needle = Buffer.from(canary);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path).catch(() => null); // removed meanwhile
    if (bytes?.includes(needle)) hits.push(`file ${path}`);
  }
  return hits;
}

/** Every message on every topic of the embedded event log (log_messages of its file, DATA_DIR/event-log.sqlite). */
export async function scanEmbeddedLog(canary: string, databasePath: string, decoder: PipelineEvents): Promise<string[]> {
  const db = new DatabaseSync(databasePath, { readOnly: true });
  try {
    const hits: string[] = [];
    const rows = db.prepare('SELECT topic, partition, offset, key, value FROM log_messages').all() as Array<{ topic: string; partition: number; offset: number; key: string | null; value: Uint8Array | null }>;
    if (rows.length === 0) throw new Error('the embedded log holds no message at all: the scan reads the wrong place');
    for (const r of rows) {
      hits.push(...(await messageHits(canary, `topic ${r.topic}/${r.partition}@${r.offset}`, r.key, r.value ? Buffer.from(r.value) : null, decoder)));
    }
    return hits;
  } finally {
    db.close();
  }
}

/** Every message still on every topic of the deployment's prefix (DLQs included), from the earliest offset. */
export async function scanKafka(canary: string, brokers: readonly string[], prefix: string, decoder: PipelineEvents, timeoutMs = 60_000): Promise<string[]> {
  const kafka = new Kafka({ clientId: 'canary-scan', brokers: [...brokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const remaining = new Map<string, number>(); // topic/partition → high watermark
  let topics: string[];
  try {
    topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length === 0) throw new Error(`no topic starts with ${prefix}: the scan reads the wrong place`);
    for (const topic of topics) {
      for (const p of await admin.fetchTopicOffsets(topic)) {
        if (Number(p.high) > Number(p.low)) remaining.set(`${topic}/${p.partition}`, Number(p.high));
      }
    }
  } finally {
    await admin.disconnect();
  }
  if (remaining.size === 0) throw new Error('no message on any topic: the scan reads the wrong place');
  const hits: string[] = [];
  const consumer = kafka.consumer({ groupId: `canary-scan-${Date.now()}-${Math.random().toString(36).slice(2)}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`topics not read to their end in ${timeoutMs} ms: ${[...remaining.keys()].join(', ')}`)), timeoutMs);
      consumer.run({
        autoCommit: false,
        eachMessage: async ({ topic, partition, message }) => {
          hits.push(...(await messageHits(canary, `topic ${topic}/${partition}@${message.offset}`, message.key?.toString() ?? null, message.value, decoder)));
          const id = `${topic}/${partition}`;
          if (remaining.has(id) && Number(message.offset) + 1 >= (remaining.get(id) as number)) remaining.delete(id);
          if (remaining.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        },
      }).catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return hits;
}

/**
 * Every row of every table of the deployment's ClickHouse database, as stored in its active parts:
 * no FINAL (earlier versions too) and rows hidden by a lightweight DELETE included
 * (apply_deleted_mask = 0). Waits first until the database's mutations are done (the server's own
 * signal: system.mutations), since a purge applies its delete masks in the background.
 */
export async function scanClickHouse(canary: string, conn: ClickHouseConnection, timeoutMs = 60_000): Promise<string[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const [{ pending }] = await conn.rows<{ pending: string }>(sql`SELECT count() AS pending FROM system.mutations WHERE database = ${conn.database} AND NOT is_done`);
    if (Number(pending) === 0) break;
    if (Date.now() > end) throw new Error(`${pending} ClickHouse mutations still running after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const tables = await conn.rows<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = ${conn.database} AND NOT is_temporary`);
  if (tables.length === 0) throw new Error(`no table in ${conn.database}: the scan reads the wrong place`);
  const hits: string[] = [];
  for (const { name } of tables) {
    const text = await conn.text(statement(`SELECT * FROM ${conn.database}.${name} SETTINGS apply_deleted_mask = 0`), 'TabSeparatedRaw');
    if (text.includes(canary)) hits.push(`clickhouse ${name}`);
  }
  return hits;
}
