import type { PersonInput } from '../../domain/types.ts';
import { createUtf8Decoder } from './limits.ts';

/**
 * A batch as the readers yield it: people, and per person `JSON.stringify(person).length` as the
 * tokenizer counted it while reading (-1: not counted), so the intake need not measure each
 * person again (services/ingest/jobs/spool.ts `jsonLengthsOf`).
 */
export type PeopleBatch = PersonInput[] & { jsonLengths?: number[] };

/**
 * What the JSON and NDJSON body readers share: text fed chunk by chunk into a buffer that keeps
 * the unparsed tail, and people handed out in batches.
 */
export abstract class PeopleBatcher<Summary> {
  protected buf = '';
  protected pos = 0;
  /** People read so far. */
  count = 0;
  batch: PersonInput[] = [];
  jsonLengths: number[] = [];

  feed(text: string): void {
    this.buf = this.pos < this.buf.length ? this.buf.slice(this.pos) + text : text;
    this.pos = 0;
  }

  takeBatch(): PeopleBatch {
    const batch: PeopleBatch = this.batch;
    batch.jsonLengths = this.jsonLengths;
    this.batch = [];
    this.jsonLengths = [];
    return batch;
  }

  /** Parses what the buffer holds; true when it stopped because a batch is full. */
  abstract run(): boolean;

  /** Checks that the body ended whole; throws an IntakeError otherwise. */
  abstract finish(): Summary;

  /** Where the reader stands, for errors found outside a token (bad UTF-8). */
  abstract place(): { path: string; line?: number };
}

/** Drives a batcher over a byte stream: batches as they fill, then the summary. */
export async function* readBatches<Summary>(
  chunks: AsyncIterable<Uint8Array>,
  parser: PeopleBatcher<Summary>,
): AsyncGenerator<PersonInput[], Summary, undefined> {
  const decoder = createUtf8Decoder(() => parser.place());
  for await (const chunk of chunks) {
    parser.feed(decoder.decode(chunk));
    while (parser.run()) yield parser.takeBatch();
  }
  parser.feed(decoder.end());
  while (parser.run()) yield parser.takeBatch();
  // Checked before the last batch goes out, so a truncated body does not deliver its tail.
  const summary = parser.finish();
  if (parser.batch.length > 0) yield parser.takeBatch();
  return summary;
}
