import { MAX_ROWS_PER_JOB } from '../../domain/check-job.ts';
import { PermanentError } from '../../platform/errors.ts';

/**
 * Why a file is refused, as a code and as da/en text (docs/decisions.md §14: a clear 422 in the caller's
 * language). One catalogue for every channel: the API's 422, SFTP's `failed/<base>.error.txt` and
 * the email reply all take their words from here. Messages never quote the file's content, so
 * they carry no personal data; a line number is the most a refusal says about where.
 */
export type FileRefusalCode =
  | 'file_empty'
  | 'file_corrupt'
  | 'file_encrypted'
  | 'file_macro_enabled'
  | 'file_format_mismatch'
  | 'file_unsupported_format'
  | 'file_too_many_rows'
  | 'file_too_large_inflated'
  | 'file_no_data'
  | 'file_parser_limit';

type Locale = 'da' | 'en';

export const MESSAGES: Readonly<Record<FileRefusalCode, Readonly<Record<Locale, string>>>> = {
  file_empty: { da: 'Filen er tom.', en: 'The file is empty.' },
  file_corrupt: {
    da: 'Filen er beskadiget eller ufuldstændig og kan ikke læses. Gem den igen, og prøv på ny.',
    en: 'The file is damaged or incomplete and cannot be read. Save it again and retry.',
  },
  file_encrypted: {
    da: 'Filen er beskyttet med adgangskode eller krypteret. Fjern beskyttelsen, og prøv igen.',
    en: 'The file is password-protected or encrypted. Remove the protection and retry.',
  },
  file_macro_enabled: {
    da: 'Filen indeholder makroer. Gem den som almindelig .xlsx, .xls eller .csv uden makroer.',
    en: 'The file contains macros. Save it as a plain .xlsx, .xls or .csv without macros.',
  },
  file_format_mismatch: {
    da: 'Filens indhold passer ikke til filtypen i navnet.',
    en: "The file's content does not match the file type in its name.",
  },
  file_unsupported_format: {
    da: 'Filtypen understøttes ikke. Brug .xlsx, .xls, .csv eller .txt.',
    en: 'The file type is not supported. Use .xlsx, .xls, .csv or .txt.',
  },
  file_too_many_rows: {
    da: `Filen har mere end ${MAX_ROWS_PER_JOB.toLocaleString('da-DK')} rækker. Del den op i flere filer.`,
    en: `The file has more than ${MAX_ROWS_PER_JOB.toLocaleString('en')} rows. Split it into several files.`,
  },
  file_too_large_inflated: {
    da: 'Regnearket fylder for meget, når det pakkes ud.',
    en: 'The spreadsheet is too large once unpacked.',
  },
  file_no_data: {
    da: 'Filen indeholder ingen rækker med data (alle ark er tomme).',
    en: 'The file holds no rows of data (every sheet is empty).',
  },
  file_parser_limit: {
    da: 'Filen kunne ikke læses inden for tids- eller hukommelsesgrænsen.',
    en: 'The file could not be read within the time or memory limit.',
  },
};

export const FILE_REFUSAL_CODES = Object.keys(MESSAGES) as FileRefusalCode[];

/**
 * A file that will not be read. Permanent: retrying the same bytes gives the same refusal.
 * `message` is English and safe to log (no cell content); `line` (1-based, physical) where known.
 */
export class FileRefusedError extends PermanentError {
  readonly code: FileRefusalCode;
  readonly line: number | null;
  /**
   * The library error behind the refusal, as its name and code only (`Error`, `ENOENT`): a parser's
   * message may quote the cell it stopped at. For the log, so that a refusal our own condition
   * caused (a temp file gone, no room) can be told from a damaged file; never sent to the caller.
   */
  readonly underlying: { name: string; code?: string } | null;

  constructor(code: FileRefusalCode, detail?: string, line?: number, options: { cause?: unknown } = {}) {
    super(detail === undefined ? MESSAGES[code].en : `${MESSAGES[code].en} (${detail})`);
    this.name = 'FileRefusedError';
    this.code = code;
    this.line = line ?? null;
    this.underlying = options.cause === undefined ? null : underlyingOf(options.cause);
  }
}

function underlyingOf(cause: unknown): { name: string; code?: string } {
  if (!(cause instanceof Error)) return { name: typeof cause };
  const code = (cause as { code?: unknown }).code;
  return { name: cause.name, ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}) };
}

/** da/en text for a refusal (the API's 422, SFTP's error file, email replies). */
export function fileRefusalMessage(code: FileRefusalCode, locale: Locale): string {
  return MESSAGES[code][locale];
}
