import type { CompanyRecord } from '../../domain/index.ts';
import { CvrRecordError, readCvrLine } from './cvr-extract.ts';
import {
  importRegister, utf8Lines, type ParsedLine, type RegisterImportDeps, type RegisterImportResult,
} from './register-import.ts';

/**
 * Imports a CVR JSON-lines extract (cvr-extract.ts) as a new company-register version. Blank
 * lines are ignored; an unusable record is skipped with its reason (at most `maxSkipped`).
 */
export async function importCompanyRegister(
  deps: RegisterImportDeps,
  request: { chunks: AsyncIterable<Uint8Array>; publishedOn?: string; maxSkipped?: number; batchSize?: number },
): Promise<RegisterImportResult> {
  return importRegister<CompanyRecord>(deps, {
    kind: 'companies',
    ...(request.publishedOn ? { publishedOn: request.publishedOn } : {}),
    ...(request.maxSkipped !== undefined ? { maxSkipped: request.maxSkipped } : {}),
    ...(request.batchSize !== undefined ? { batchSize: request.batchSize } : {}),
  }, parseLines(request.chunks));
}

async function* parseLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ParsedLine<CompanyRecord>> {
  let number = 0;
  for await (const line of utf8Lines(chunks)) {
    number += 1;
    if (line.trim() === '') continue;
    try {
      yield { record: readCvrLine(line) };
    } catch (error) {
      if (!(error instanceof CvrRecordError)) throw error;
      yield { skipped: error.reason, line: number };
    }
  }
}
