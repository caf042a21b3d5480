/**
 * Types shared by the page and the server that serves it. Types only: nothing here reaches the
 * browser at run time (the server's build refuses non-sibling imports; `import type` is erased).
 */
export type { CheckJob } from '../../api/schemas/check-job.ts';

export type Locale = 'da' | 'en';

/** /app/texts.json, made by services/web/assets.ts from the service's catalogues. */
export interface PageTexts {
  messages: Record<Locale, Record<string, string>>;
  /** ColumnMapping's fields (without header_row), in the schema's order. */
  fields: string[];
  /** Level 0..5 → the match code's label (the same text results carry). */
  levels: Record<Locale, string[]>;
  /** The result file's appended column headers (status, level, code, reasons, list version). */
  verdict_headers: Record<Locale, readonly string[]>;
}

/** The API's error body (DECISIONS §5), as the page shows it. */
export interface ApiProblem {
  status: number;
  code: string;
  message: string;
  request_id: string | null;
  details?: { reason?: string; issues?: Array<{ path: string; message: string }>; [key: string]: unknown };
}
