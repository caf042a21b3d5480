import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { flushDeleted, inTransaction } from '../store/embedded/database.ts';
import { UnknownTopicError, type LogMessage, type OutgoingMessage, type TopicDefinition } from './port.ts';

/**
 * The embedded event log's tables on node:sqlite: an append-only message table with per-partition
 * offsets, the next offset of every partition (so offsets never repeat after retention deletes
 * messages), and the committed offsets of consumer groups. Synchronous by nature: one statement
 * at a time in this process, so offsets are assigned without races.
 */
export interface EmbeddedLogStorage {
  createTopic(definition: TopicDefinition): void;
  partitionCount(topic: string): number;
  /** Appends in one transaction; returns the partitions written to. */
  append(topic: string, messages: readonly OutgoingMessage[], timestamp: number): Set<number>;
  read(topic: string, partition: number, fromOffset: number, limit: number): LogMessage[];
  /** The offset the next appended message of the partition gets. */
  endOffset(topic: string, partition: number): number;
  committed(group: string, topic: string, partition: number): number | undefined;
  commit(group: string, topic: string, partition: number, nextOffset: number): void;
  /**
   * Appends what a batch's handler published and commits the batch's offset in one transaction
   * (docs/platform-event-log.md "Adapters"): a crash keeps both or neither, and the two cost one
   * write to the file, not two.
   */
  appendAndCommit(appends: ReadonlyArray<{ topic: string; messages: readonly OutgoingMessage[] }>, commit: GroupCommit, timestamp: number): void;
  /** Deletes messages past retention and superseded keys of compacted topics. */
  prune(now: number): void;
}

export interface GroupCommit {
  group: string;
  topic: string;
  partition: number;
  nextOffset: number;
}

interface TopicRow {
  name: string;
  partitions: number;
  retention_ms: number | null;
  compacted: number;
}

interface MessageRow {
  partition: number;
  offset: number;
  key: string | null;
  value: Uint8Array | null;
  headers: string | null;
  timestamp: number;
}

export function createEmbeddedLogStorage(db: DatabaseSync): EmbeddedLogStorage {
  // log_messages is a rowid table: a row chunk is ~150 KB, far past the row size WITHOUT ROWID is
  // made for (appending and reading cost more; docs/embedded-and-admin.md "Three database files").
  // A table created earlier WITHOUT ROWID keeps it; the statements are the same.
  db.exec(`
    CREATE TABLE IF NOT EXISTS log_topics (
      name TEXT PRIMARY KEY,
      partitions INTEGER NOT NULL,
      retention_ms INTEGER,
      compacted INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS log_partitions (
      topic TEXT NOT NULL,
      partition INTEGER NOT NULL,
      next_offset INTEGER NOT NULL,
      PRIMARY KEY (topic, partition)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS log_messages (
      topic TEXT NOT NULL,
      partition INTEGER NOT NULL,
      offset INTEGER NOT NULL,
      key TEXT,
      value BLOB,
      headers TEXT,
      timestamp INTEGER NOT NULL,
      PRIMARY KEY (topic, partition, offset)
    );
    CREATE INDEX IF NOT EXISTS log_messages_by_time ON log_messages (topic, timestamp);
    CREATE TABLE IF NOT EXISTS log_group_offsets (
      group_id TEXT NOT NULL,
      topic TEXT NOT NULL,
      partition INTEGER NOT NULL,
      next_offset INTEGER NOT NULL,
      PRIMARY KEY (group_id, topic, partition)
    ) WITHOUT ROWID;
  `);

  const statements = {
    insertTopic: db.prepare(
      'INSERT OR IGNORE INTO log_topics (name, partitions, retention_ms, compacted) VALUES (?, ?, ?, ?)',
    ),
    insertPartition: db.prepare('INSERT OR IGNORE INTO log_partitions (topic, partition, next_offset) VALUES (?, ?, 0)'),
    topic: db.prepare('SELECT name, partitions, retention_ms, compacted FROM log_topics WHERE name = ?'),
    allTopics: db.prepare('SELECT name, partitions, retention_ms, compacted FROM log_topics'),
    nextOffset: db.prepare('SELECT next_offset FROM log_partitions WHERE topic = ? AND partition = ?'),
    setNextOffset: db.prepare('UPDATE log_partitions SET next_offset = ? WHERE topic = ? AND partition = ?'),
    insertMessage: db.prepare(
      'INSERT INTO log_messages (topic, partition, offset, key, value, headers, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    read: db.prepare(
      `SELECT partition, offset, key, value, headers, timestamp FROM log_messages
       WHERE topic = ? AND partition = ? AND offset >= ? ORDER BY offset LIMIT ?`,
    ),
    committed: db.prepare('SELECT next_offset FROM log_group_offsets WHERE group_id = ? AND topic = ? AND partition = ?'),
    commit: db.prepare(
      `INSERT INTO log_group_offsets (group_id, topic, partition, next_offset) VALUES (?, ?, ?, ?)
       ON CONFLICT (group_id, topic, partition) DO UPDATE SET next_offset = excluded.next_offset`,
    ),
    deleteExpired: db.prepare('DELETE FROM log_messages WHERE topic = ? AND timestamp < ?'),
    deleteSuperseded: db.prepare(
      `DELETE FROM log_messages WHERE topic = ? AND key IS NOT NULL AND EXISTS (
         SELECT 1 FROM log_messages later WHERE later.topic = log_messages.topic
           AND later.partition = log_messages.partition AND later.key = log_messages.key
           AND later.offset > log_messages.offset)`,
    ),
  } satisfies Record<string, StatementSync>;

  const partitionCounts = new Map<string, number>();
  const roundRobin = new Map<string, number>();

  function partitionCount(topic: string): number {
    let count = partitionCounts.get(topic);
    if (count === undefined) {
      const row = statements.topic.get(topic) as TopicRow | undefined;
      if (!row) throw new UnknownTopicError(topic);
      count = row.partitions;
      partitionCounts.set(topic, count);
    }
    return count;
  }

  function partitionFor(topic: string, key: string | null, count: number): number {
    if (key !== null) return keyHash(key) % count;
    const next = (roundRobin.get(topic) ?? 0) % count;
    roundRobin.set(topic, next + 1);
    return next;
  }

  function endOffset(topic: string, partition: number): number {
    const row = statements.nextOffset.get(topic, partition) as { next_offset: number } | undefined;
    return row?.next_offset ?? 0;
  }

  /** Appends inside the caller's transaction; returns the partitions written to. */
  function appendRows(topic: string, messages: readonly OutgoingMessage[], timestamp: number): Set<number> {
    const count = partitionCount(topic);
    const touched = new Set<number>();
    const next = new Map<number, number>();
    for (const message of messages) {
      const partition = partitionFor(topic, message.key, count);
      const offset = next.get(partition) ?? endOffset(topic, partition);
      statements.insertMessage.run(
        topic,
        partition,
        offset,
        message.key,
        toBytes(message.value),
        message.headers && Object.keys(message.headers).length > 0 ? JSON.stringify(message.headers) : null,
        timestamp,
      );
      next.set(partition, offset + 1);
      touched.add(partition);
    }
    for (const [partition, offset] of next) statements.setNextOffset.run(offset, topic, partition);
    return touched;
  }

  return {
    createTopic(definition) {
      inTransaction(db, () => {
        statements.insertTopic.run(
          definition.name,
          definition.partitions,
          definition.retentionMs,
          definition.compacted ? 1 : 0,
        );
        // An existing topic keeps its partition count (as on Kafka); only its rows are ensured.
        const partitions = partitionCount(definition.name);
        for (let p = 0; p < partitions; p++) statements.insertPartition.run(definition.name, p);
      });
    },

    partitionCount,

    append(topic, messages, timestamp) {
      return inTransaction(db, () => appendRows(topic, messages, timestamp));
    },

    appendAndCommit(appends, commit, timestamp) {
      inTransaction(db, () => {
        for (const { topic, messages } of appends) appendRows(topic, messages, timestamp);
        statements.commit.run(commit.group, commit.topic, commit.partition, commit.nextOffset);
      });
    },

    read(topic, partition, fromOffset, limit) {
      const rows = statements.read.all(topic, partition, fromOffset, limit) as unknown as MessageRow[];
      return rows.map((row) => ({
        topic,
        partition: row.partition,
        offset: String(row.offset),
        key: row.key,
        value: row.value === null ? null : Buffer.from(row.value.buffer, row.value.byteOffset, row.value.byteLength),
        headers: row.headers === null ? {} : (JSON.parse(row.headers) as Record<string, string>),
        timestamp: row.timestamp,
      }));
    },

    endOffset,

    committed(group, topic, partition) {
      const row = statements.committed.get(group, topic, partition) as { next_offset: number } | undefined;
      return row?.next_offset;
    },

    commit(group, topic, partition, nextOffset) {
      statements.commit.run(group, topic, partition, nextOffset);
    },

    prune(now) {
      const topics = statements.allTopics.all() as unknown as TopicRow[];
      let expired = 0;
      inTransaction(db, () => {
        for (const topic of topics) {
          if (topic.retention_ms !== null) expired += Number(statements.deleteExpired.run(topic.name, now - topic.retention_ms).changes);
          if (topic.compacted) statements.deleteSuperseded.run(topic.name);
        }
      });
      // Expired rows and results hold personal data: gone from the WAL too, not only from the table.
      if (expired > 0) flushDeleted(db);
    },
  };
}

function toBytes(value: Uint8Array | string | null): Uint8Array | null {
  if (value === null) return null;
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

/** FNV-1a over the key's UTF-8 bytes: stable across processes and releases, cheap. */
export function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
