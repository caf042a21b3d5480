/**
 * Streams the `application/json` body of POST /v2/check-jobs: a top-level object whose `people`
 * array may hold 1,000,000 flat person objects (docs/decisions.md §7). People are yielded in batches as they
 * are read; the other top-level fields (`callback_url`, `external_ref`, `policy`, `options`, ...) may
 * come before or after `people` and are reported through `onField` as soon as each is read and in the
 * generator's return value. Nothing here validates those fields beyond being JSON: the API's schema
 * does. The batches yielded are provisional until the generator returns: an error may still come.
 */
import type { PersonInput } from '../../domain/types.ts';
import { PeopleBatcher, readBatches } from './batches.ts';
import { IntakeError } from './errors.ts';
import { resolveLimits, type IntakeLimits, type ResolvedLimits } from './limits.ts';
import { INCOMPLETE, INVALID, TOO_LONG, looksLikeJsonValue, parsePerson, parsedPerson, parsedPersonJsonLength, scanRawValue, scanString, scannedString, skipWhitespace } from './tokens.ts';

export interface JsonIntakeOptions extends IntakeLimits {
  /** Called with each top-level field other than `people`, in body order, once read. */
  onField?: (name: string, value: unknown) => void;
}

export interface JsonBodySummary {
  /** Every top-level field except `people`, as parsed JSON. */
  fields: Record<string, unknown>;
  peopleCount: number;
}

/** Top-level keys and the values of fields other than `people` are small. */
const MAX_KEY_LENGTH = 256;
const MAX_FIELD_CHARS = 64 * 1024;

type State =
  | 'start' | 'first_key' | 'key' | 'colon' | 'value' | 'after_value'
  | 'people_first' | 'person' | 'after_person' | 'done';


class JsonBodyParser extends PeopleBatcher<JsonBodySummary> {
  private state: State = 'start';
  private key = '';
  private readonly fields = new Map<string, unknown>();
  private sawPeople = false;
  private readonly limits: ResolvedLimits;
  private readonly onField: JsonIntakeOptions['onField'];

  constructor(options: JsonIntakeOptions) {
    super();
    this.limits = resolveLimits(options, true);
    this.onField = options.onField;
  }

  place(): { path: string } {
    return { path: this.path() };
  }

  /** Where the parser stands, for errors found outside a token (bad UTF-8, early end). */
  private path(): string {
    if (this.state === 'person' || this.state === 'after_person' || this.state === 'people_first') {
      return `people[${this.count}]`;
    }
    return this.state === 'value' ? this.key : '';
  }

  run(): boolean {
    const buf = this.buf;
    let j = this.pos;
    for (;;) {
      j = skipWhitespace(buf, j, true);
      if (j >= buf.length) break;
      const c = buf.charCodeAt(j);
      if (this.state === 'person') {
        if (c !== 123) throw new IntakeError('not_an_object', `people[${this.count}]`);
        if (this.count >= this.limits.maxPeople) {
          throw new IntakeError('too_many_people', 'people', { limit: this.limits.maxPeople });
        }
        const end = parsePerson(buf, j, this.limits, { index: this.count });
        if (end === INCOMPLETE) break;
        this.batch.push(parsedPerson);
        this.jsonLengths.push(parsedPersonJsonLength);
        this.count += 1;
        j = end;
        this.state = 'after_person';
        if (this.batch.length >= this.limits.batchSize) {
          this.pos = j;
          return true;
        }
        continue;
      }
      const next = this.step(buf, j, c);
      if (next === INCOMPLETE) break;
      j = next;
    }
    this.pos = j;
    return false;
  }

  /** One structural step outside a person; returns the next index or INCOMPLETE. */
  private step(buf: string, j: number, c: number): number {
    switch (this.state) {
      case 'start':
        if (c !== 123) throw new IntakeError(looksLikeJsonValue(c) ? 'not_an_object' : 'invalid_json', '');
        this.state = 'first_key';
        return j + 1;
      case 'first_key':
      case 'key': {
        if (c === 125 && this.state === 'first_key') {
          this.state = 'done';
          return j + 1;
        }
        if (c !== 34) throw new IntakeError('invalid_json', '');
        const end = scanString(buf, j, MAX_KEY_LENGTH);
        if (end === INCOMPLETE) return INCOMPLETE;
        if (end < 0) throw new IntakeError('invalid_json', '');
        this.key = scannedString;
        if (this.key === 'people' ? this.sawPeople : this.fields.has(this.key)) {
          throw new IntakeError('duplicate_field', this.keyPath());
        }
        this.state = 'colon';
        return end;
      }
      case 'colon':
        if (c !== 58) throw new IntakeError('invalid_json', this.keyPath());
        this.state = 'value';
        return j + 1;
      case 'value':
        return this.value(buf, j, c);
      case 'after_value':
        if (c === 44) this.state = 'key';
        else if (c === 125) this.state = 'done';
        else throw new IntakeError('invalid_json', '');
        return j + 1;
      case 'people_first':
        if (c === 93) {
          this.state = 'after_value';
          return j + 1;
        }
        this.state = 'person';
        return j;
      case 'after_person':
        if (c === 44) this.state = 'person';
        else if (c === 93) this.state = 'after_value';
        else throw new IntakeError('invalid_json', `people[${this.count - 1}]`);
        return j + 1;
      default:
        // 'done': only whitespace may follow the body's object.
        throw new IntakeError('invalid_json', '');
    }
  }

  private value(buf: string, j: number, c: number): number {
    if (this.key === 'people') {
      if (c !== 91) throw new IntakeError('not_an_array', 'people');
      this.sawPeople = true;
      this.state = 'people_first';
      return j + 1;
    }
    const end = scanRawValue(buf, j, MAX_FIELD_CHARS);
    if (end === INCOMPLETE) return INCOMPLETE;
    if (end === TOO_LONG) throw new IntakeError('value_too_large', this.keyPath(), { limit: MAX_FIELD_CHARS });
    let value: unknown;
    try {
      if (end === INVALID) throw new Error('bad string');
      value = JSON.parse(buf.slice(j, end));
    } catch {
      // JSON.parse's message quotes the text; it must not reach the caller or the logs.
      throw new IntakeError('invalid_json', this.keyPath());
    }
    this.fields.set(this.key, value);
    this.onField?.(this.key, value);
    this.state = 'after_value';
    return end;
  }

  private keyPath(): string {
    return /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(this.key) ? this.key : '';
  }

  finish(): JsonBodySummary {
    if (this.state !== 'done') throw new IntakeError('invalid_json', this.path());
    if (!this.sawPeople) throw new IntakeError('missing_people', 'people');
    if (this.count < this.limits.minPeople) {
      throw new IntakeError('too_few_people', 'people', { limit: this.limits.minPeople });
    }
    return { fields: Object.fromEntries(this.fields), peopleCount: this.count };
  }
}

export function readPeopleFromJson(
  chunks: AsyncIterable<Uint8Array>,
  options: JsonIntakeOptions = {},
): AsyncGenerator<PersonInput[], JsonBodySummary, undefined> {
  return readBatches(chunks, new JsonBodyParser(options));
}
