/**
 * A process that reads an xlsx as the services do (spool for exceljs's temp files, openTable) and
 * stops after the first row, holding the file open until it is killed: the xlsx temp-file test
 * kills it with SIGKILL mid-read. Arguments: the spool directory and the xlsx path.
 */
import { openTable } from '../../../services/ingest/files/index.ts';
import { useSpoolForXlsxTempFiles } from '../../../services/ingest/index.ts';

const [spoolDir, path] = process.argv.slice(2);
useSpoolForXlsxTempFiles(spoolDir);
const table = await openTable(path, { filename: 'list.xlsx' });
for await (const row of table.rows()) {
  process.stdout.write(`reading ${row.length}\n`);
  // Mid-sheet for good (breaking off would let the reader finish and delete its copy).
  setInterval(() => undefined, 1 << 30);
  await new Promise(() => undefined);
}
