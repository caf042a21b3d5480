/**
 * Streams an `application/x-ndjson` check-job body: one flat PersonInput object per line
 * (docs/decisions.md §7). Blank lines and `\r\n` endings are accepted; an object may not span lines, and a
 * line holds at most one object. Errors carry the 1-based line as well as the `people[i]` path.
 * Job fields (`callback_url`, `policy`, ...) have no place in this body: the API takes them from
 * the query string or headers.
 */
import type { PersonInput } from '../../domain/types.ts';
import { PeopleBatcher, readBatches } from './batches.ts';
import { IntakeError } from './errors.ts';
import { resolveLimits, type IntakeLimits, type ResolvedLimits } from './limits.ts';
import { INCOMPLETE, looksLikeJsonValue, parsePerson, parsedPerson, parsedPersonJsonLength } from './tokens.ts';

export interface NdjsonBodySummary {
  peopleCount: number;
  lineCount: number;
}

class NdjsonParser extends PeopleBatcher<NdjsonBodySummary> {
  /** The line the parser is on, 1-based. */
  private line = 1;
  /** A person was read on this line: anything but whitespace before the newline is an error. */
  private lineHasPerson = false;
  private readonly limits: ResolvedLimits;

  constructor(limits: IntakeLimits) {
    super();
    this.limits = resolveLimits(limits, false);
  }

  place(): { path: string; line: number } {
    return { path: this.path(), line: this.line };
  }

  private path(): string {
    return `people[${this.lineHasPerson ? this.count - 1 : this.count}]`;
  }

  run(): boolean {
    const buf = this.buf;
    const len = buf.length;
    let j = this.pos;
    while (j < len) {
      const c = buf.charCodeAt(j);
      if (c === 10) {
        this.line += 1;
        this.lineHasPerson = false;
        j += 1;
        continue;
      }
      if (c === 32 || c === 9 || c === 13) {
        j += 1;
        continue;
      }
      if (this.lineHasPerson) throw new IntakeError('invalid_json', this.path(), { line: this.line });
      if (c !== 123) {
        throw new IntakeError(looksLikeJsonValue(c) ? 'not_an_object' : 'invalid_json', this.path(), { line: this.line });
      }
      if (this.count >= this.limits.maxPeople) {
        throw new IntakeError('too_many_people', 'people', { line: this.line, limit: this.limits.maxPeople });
      }
      const end = parsePerson(buf, j, this.limits, { index: this.count, line: this.line });
      if (end === INCOMPLETE) break;
      this.batch.push(parsedPerson);
      this.jsonLengths.push(parsedPersonJsonLength);
      this.count += 1;
      this.lineHasPerson = true;
      j = end;
      if (this.batch.length >= this.limits.batchSize) {
        this.pos = j;
        return true;
      }
    }
    this.pos = j;
    return false;
  }

  finish(): NdjsonBodySummary {
    if (this.pos < this.buf.length) {
      // The body ended inside an object.
      throw new IntakeError('invalid_json', this.path(), { line: this.line });
    }
    if (this.count < this.limits.minPeople) {
      throw new IntakeError('too_few_people', 'people', { limit: this.limits.minPeople });
    }
    return { peopleCount: this.count, lineCount: this.line };
  }
}

export function readPeopleFromNdjson(
  chunks: AsyncIterable<Uint8Array>,
  limits: IntakeLimits = {},
): AsyncGenerator<PersonInput[], NdjsonBodySummary, undefined> {
  return readBatches(chunks, new NdjsonParser(limits));
}
