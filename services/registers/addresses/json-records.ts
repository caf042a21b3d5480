/**
 * Streams the records out of DAR's JSON files without holding a file in memory: the national
 * download is one JSON object of entity lists ({"AdresseList": [...], "HusnummerList": [...]}),
 * several GB; per-entity files are a JSON array or NDJSON. A record is any object that stands in
 * an array or at the top level (NDJSON); it is handed over with the name of the list it stands in
 * (the key of its array, '' for a top-level array or NDJSON) and parsed with JSON.parse, so only
 * one record's text is held at a time. Objects nested inside a record stay part of it. A top-level
 * object is a record unless it holds an array under a key ending in "List" (the national file).
 */
import { PermanentError } from '../../platform/errors.ts';
export interface JsonRecord {
  list: string;
  value: Record<string, unknown>;
}

export class JsonRecordsError extends PermanentError {
  constructor(message: string) {
    super(message);
    this.name = 'JsonRecordsError';
  }
}

const OPEN_OBJECT = 123; // {
const CLOSE_OBJECT = 125; // }
const OPEN_ARRAY = 91; // [
const CLOSE_ARRAY = 93; // ]
const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;

export async function* jsonRecords(chunks: AsyncIterable<string | Buffer>): AsyncGenerator<JsonRecord> {
  /** Container stack: 'o' object, 'a' array; keys of arrays in `arrayKeys` (same depth). */
  const stack: string[] = [];
  const arrayKeys: string[] = [];
  let inString = false;
  let escaped = false;
  let lastString = '';
  let stringStart = -1;
  let keyCandidate = '';
  /** Depth at which the current record started (-1: not in a record) and its text so far. */
  let recordDepth = -1;
  let record = '';
  const decoder = new TextDecoder('utf-8');

  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let recordFrom = recordDepth >= 0 ? 0 : -1;
    let partialString = inString && stringStart < 0 ? lastString : '';
    if (inString) stringStart = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (recordDepth < 0 || stack.length === 1) lastString = partialString + text.slice(stringStart, i);
          partialString = '';
        }
        continue;
      }
      if (c === QUOTE) {
        inString = true;
        stringStart = i + 1;
      } else if (c === COLON) {
        keyCandidate = lastString;
      } else if (c === OPEN_OBJECT) {
        if (recordDepth < 0 && (stack.length === 0 || stack[stack.length - 1] === 'a')) {
          recordDepth = stack.length;
          recordFrom = i;
        }
        stack.push('o');
      } else if (c === OPEN_ARRAY) {
        if (recordDepth === 0 && stack.length === 1 && keyCandidate.endsWith('List')) {
          // {"AdresseList": [...]}: the top-level object holds entity lists, it is no record.
          recordDepth = -1;
          recordFrom = -1;
          record = '';
        }
        stack.push('a');
        arrayKeys[stack.length - 1] = stack.length >= 2 && stack[stack.length - 2] === 'o' ? keyCandidate : '';
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        const open = stack.pop();
        if (open !== (c === CLOSE_OBJECT ? 'o' : 'a')) throw new JsonRecordsError('unbalanced JSON');
        if (c === CLOSE_OBJECT && recordDepth === stack.length) {
          const whole = record + text.slice(recordFrom, i + 1);
          record = '';
          recordDepth = -1;
          recordFrom = -1;
          let value: unknown;
          try {
            value = JSON.parse(whole);
          } catch {
            throw new JsonRecordsError('a record is not valid JSON');
          }
          yield { list: stack.length === 0 ? '' : arrayKeys[stack.length - 1] ?? '', value: value as Record<string, unknown> };
        }
      }
    }
    if (recordDepth >= 0) record += text.slice(recordFrom);
    if (inString && (recordDepth < 0 || stack.length === 1)) lastString = partialString + text.slice(stringStart);
    stringStart = -1;
  }
  if (stack.length > 0 || inString) throw new JsonRecordsError('the JSON ends in the middle of a value');
}
