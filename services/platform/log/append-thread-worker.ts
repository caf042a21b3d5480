import { parentPort, workerData } from 'node:worker_threads';
import { silentLogger } from '../logger.ts';
import { openEmbeddedDatabase } from '../store/embedded/database.ts';
import { createEmbeddedEventLog } from './embedded.ts';
import type { AppendRequest, AppendReply, AppendThreadData } from './append-thread.ts';

/**
 * The thread of append-thread.ts: its own connection to the embedded event log's file, so the
 * commit and its fsync wait here, not on the API thread. Appends what it is sent, one publish
 * (one transaction) per message, and answers each with its id; `close` closes the log and the file.
 * It logs nothing: a failure goes back to the calling thread, which logs it.
 */
const data = workerData as AppendThreadData;
const port = parentPort!;
const db = openEmbeddedDatabase(data.logPath);
const log = createEmbeddedEventLog({ db, logger: silentLogger(), wakeChannel: data.wakeChannel });

port.on('message', (message: AppendRequest | 'close') => {
  if (message === 'close') {
    void log.close().finally(() => {
      db.close();
      port.close();
    });
    return;
  }
  log.publish(message.topic, message.messages).then(
    () => port.postMessage({ id: message.id } satisfies AppendReply),
    (error: unknown) => port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies AppendReply),
  );
});
port.postMessage('ready');
