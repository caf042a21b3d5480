/**
 * RFC 4180 records out of decoded text, fed chunk by chunk: the one CSV tokenizer of the service
 * (uploaded check files here, customer list files in services/registers/lists/csv-format.ts).
 *
 * - A field that starts with `"` is quoted: `""` is a quote, delimiters and line breaks inside are
 *   data. Text after the closing quote up to the next delimiter is kept (Excel does the same).
 * - Records end at LF; a CR before it is dropped (CRLF and LF files read alike).
 * - `line` is physical and 1-based: the line where the record starts, so messages can point at it.
 * - A record longer than `maxRecordChars` is no spreadsheet data (an unterminated quote, a binary
 *   file): its text is not kept, it is reported once as `too_long` and reading goes on after it.
 *   That bounds memory whatever the input.
 * - An unterminated quote at the end of the input is reported as `unterminated_quote`.
 *
 * Unquoted fields are sliced, not built character by character: a million rows a few seconds.
 */
export interface CsvRecord {
  fields: string[];
  line: number;
  problem: null | 'too_long' | 'unterminated_quote';
}

export interface CsvTokenizer {
  /** Records completed by this chunk (a record is only emitted once its end is seen). */
  push(text: string): CsvRecord[];
  /** End of input: the last record (no line break after it) and a dangling quote. */
  end(): CsvRecord[];
}

const LF = 10;
const CR = 13;
const QUOTE = 34;

/** Parsed record, or INCOMPLETE when the text ends first. */
type Parsed = { fields: string[]; next: number; newlines: number } | typeof INCOMPLETE | typeof UNTERMINATED;
const INCOMPLETE = 0;
const UNTERMINATED = 1;

export function createCsvTokenizer(delimiter: string, maxRecordChars = 1024 * 1024): CsvTokenizer {
  const delim = delimiter.charCodeAt(0);
  let pending = '';
  let line = 1;
  /** Set while discarding a record that grew past maxRecordChars. */
  let skip: { inQuotes: boolean } | null = null;

  function parse(s: string, start: number, final: boolean): Parsed {
    const fields: string[] = [];
    let p = start;
    let newlines = 0;
    const len = s.length;
    for (;;) {
      let value: string;
      let k: number;
      if (p < len && s.charCodeAt(p) === QUOTE) {
        value = '';
        let q = p + 1;
        for (;;) {
          const j = s.indexOf('"', q);
          if (j === -1) return final ? UNTERMINATED : INCOMPLETE;
          value += s.slice(q, j);
          if (j + 1 === len && !final) return INCOMPLETE; // `"` or `""`: the next chunk decides
          if (s.charCodeAt(j + 1) === QUOTE) {
            value += '"';
            q = j + 2;
            continue;
          }
          k = j + 1;
          break;
        }
        if (value.indexOf('\n') !== -1) for (let i = value.indexOf('\n'); i !== -1; i = value.indexOf('\n', i + 1)) newlines++;
        // Text after the closing quote (`"a"b`) belongs to the field.
        const rest = k;
        while (k < len && s.charCodeAt(k) !== delim && s.charCodeAt(k) !== LF) k++;
        if (k > rest) value += s.slice(rest, k);
      } else {
        k = p;
        while (k < len) {
          const c = s.charCodeAt(k);
          if (c === delim || c === LF) break;
          k++;
        }
        value = s.slice(p, k);
      }
      if (k === len) {
        if (!final) return INCOMPLETE;
        if (value.length > 0 && value.charCodeAt(value.length - 1) === CR) value = value.slice(0, -1);
        fields.push(value);
        return { fields, next: k, newlines };
      }
      if (s.charCodeAt(k) === delim) {
        fields.push(value);
        p = k + 1;
        continue;
      }
      if (value.length > 0 && value.charCodeAt(value.length - 1) === CR) value = value.slice(0, -1);
      fields.push(value);
      return { fields, next: k + 1, newlines: newlines + 1 };
    }
  }

  /** Discards text of an over-long record; returns the index after its end, or -1 if not seen. */
  function skipRecord(s: string, state: { inQuotes: boolean }): number {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === QUOTE) state.inQuotes = !state.inQuotes; // `""` toggles twice: still right
      else if (c === LF) {
        line++;
        if (!state.inQuotes) return i + 1;
      }
    }
    return -1;
  }

  function run(text: string, final: boolean): CsvRecord[] {
    const out: CsvRecord[] = [];
    let s = pending + text;
    pending = '';
    if (skip !== null) {
      const after = skipRecord(s, skip);
      if (after === -1) return out;
      skip = null;
      s = s.slice(after);
    }
    let p = 0;
    while (p < s.length) {
      const parsed = parse(s, p, final);
      if (parsed === INCOMPLETE) {
        if (s.length - p > maxRecordChars) {
          out.push({ fields: [], line, problem: 'too_long' });
          skip = { inQuotes: false };
          const after = skipRecord(s.slice(p), skip);
          if (after === -1) return out;
          skip = null;
          p += after;
          continue;
        }
        pending = s.slice(p);
        return out;
      }
      if (parsed === UNTERMINATED) {
        out.push({ fields: [], line, problem: 'unterminated_quote' });
        return out;
      }
      out.push({ fields: parsed.fields, line, problem: null });
      line += parsed.newlines;
      p = parsed.next;
    }
    return out;
  }

  return {
    push: (text) => run(text, false),
    end: () => {
      if (skip !== null) {
        skip = null;
        return [];
      }
      return run('', true);
    },
  };
}
