/**
 * Reads a multipart POST /v2/check-jobs (docs/decisions.md §14) into a file on local disk and its form
 * fields: the `file` part streams to the spool directory (spoolBytes: counted, 100 MB → 413,
 * hashed; a full disk → 503 spool_full), never into memory; `column_mapping` and `options` are
 * JSON text, checked against their schemas; `callback_url` and `external_ref` are text. Any other
 * part, a second file or a missing one is 422. The file is deleted again if anything about the
 * request is wrong.
 */
import { rm } from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CheckJobOptions, ColumnMapping } from '../../domain/check-job.ts';
import { spoolBytes, SpoolFullError } from '../../ingest/index.ts';
import { ApiError, spoolFull, validationFailed } from '../errors.ts';
import { issuesFromZod } from '../zod-issues.ts';
import { CheckJobOptionsSchema, ColumnMappingSchema } from '../schemas/check-job.ts';
import { boundedString } from '../schemas/registry.ts';
import { plainFileName } from '../../ingest/uploads/file-name.ts';
import { issueAt } from '../issue-texts.ts';

/** docs/decisions.md §14: uploads up to 100 MB; beyond, 413. */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** The form's text fields are small; 64 KiB is far beyond any real mapping. */
const MAX_FIELD_BYTES = 64 * 1024;

/** Multipart `options`: the job options plus `start` (docs/decisions.md §14: default false, a draft). */
export const UploadOptionsSchema = CheckJobOptionsSchema.extend({
  start: z.boolean().optional().describe('true: the job starts at once instead of waiting as a draft (default false)'),
  confirm_warnings: z.boolean().optional()
    .describe('With start: start although the mapping has warnings (else 409 `warnings_unconfirmed`, nothing created)'),
});

/** The multipart form as the OpenAPI document shows it (the route reads it itself). */
export const UploadFormSchema = z.strictObject({
  file: z.string().meta({ contentMediaType: 'application/octet-stream' })
    .describe('The spreadsheet or CSV (.xlsx, .xls, .csv, .txt; at most 100 MB). The format is sniffed from the bytes.'),
  column_mapping: z.string().optional().describe('ColumnMapping as JSON text; default: guessed from the headers'),
  options: z.string().optional().describe('CheckJobOptions as JSON text, plus `start` (boolean, default false)'),
  callback_url: z.string().optional().describe('https only; private and loopback addresses are refused'),
  external_ref: z.string().optional().describe('Your reference, echoed on the job'),
});

export interface Upload {
  path: string;
  filename: string | null;
  bytes: number;
  sha256: string;
  column_mapping: ColumnMapping | null;
  options: (CheckJobOptions & { start?: boolean; confirm_warnings?: boolean }) | null;
  callback_url: string | null;
  external_ref: string | null;
  /** The fields as sent, for the idempotency fingerprint. */
  rawFields: Record<string, string>;
}

/**
 * What makes an upload the same request for an Idempotency-Key (docs/decisions.md §6): the file's bytes,
 * its name and the fields as sent.
 */
export function idempotencyBodyOf(upload: Upload): Record<string, unknown> {
  return { media_type: 'multipart', file_sha256: upload.sha256, filename: upload.filename, fields: upload.rawFields };
}

const FIELDS = ['column_mapping', 'options', 'callback_url', 'external_ref'] as const;

const tooLarge = () =>
  new ApiError({ code: 'invalid_request', messageKey: 'upload_too_large', status: 413, details: { reason: 'body_too_large' } });

function jsonField<T>(name: string, text: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validationFailed([issueAt(name, 'invalid_json_field')]);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw validationFailed(issuesFromZod(parsed.error.issues.map((i) => ({ ...i, path: [name, ...i.path] })), { [name]: value }));
  }
  return parsed.data;
}

export async function readUpload(request: FastifyRequest, spoolDir: string, maxBytes = MAX_UPLOAD_BYTES): Promise<Upload> {
  const raw: Record<string, string> = {};
  let file: { path: string; filename: string | null; bytes: number; sha256: string } | null = null;
  try {
    const parts = request.parts({
      limits: { fileSize: maxBytes, files: 1, fields: FIELDS.length, fieldSize: MAX_FIELD_BYTES, parts: FIELDS.length + 1 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw validationFailed([issueAt(safeName(part.fieldname), 'unknown_upload_field')]);
        }
        const spooled = await spoolBytes(part.file, spoolDir);
        file = { ...spooled, filename: plainFileName(part.filename) };
        if (part.file.truncated) throw tooLarge();
      } else {
        const name = part.fieldname;
        if (!(FIELDS as readonly string[]).includes(name)) throw validationFailed([issueAt(safeName(name), 'unknown_field')]);
        if (part.valueTruncated) throw validationFailed([issueAt(name, 'field_too_large')]);
        if (Object.hasOwn(raw, name)) throw validationFailed([issueAt(name, 'field_given_twice')]);
        raw[name] = String(part.value);
      }
    }
    if (!file) throw validationFailed([issueAt('file', 'required')]);
    const text = (name: 'callback_url' | 'external_ref') => {
      if (raw[name] === undefined) return null;
      const parsed = boundedString().safeParse(raw[name]);
      if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error.issues.map((i) => ({ ...i, path: [name] })), {}));
      return parsed.data;
    };
    return {
      path: file.path,
      filename: file.filename,
      bytes: file.bytes,
      sha256: file.sha256,
      column_mapping: raw.column_mapping === undefined ? null : jsonField('column_mapping', raw.column_mapping, ColumnMappingSchema),
      options: raw.options === undefined ? null : jsonField('options', raw.options, UploadOptionsSchema),
      callback_url: text('callback_url'),
      external_ref: text('external_ref'),
      rawFields: raw,
    };
  } catch (error) {
    if (file) await rm(file.path, { force: true });
    throw mapMultipartError(error);
  }
}


function safeName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? name : '';
}

/** A full spool and @fastify/multipart's limit and format errors in the contract's terms (503 / 413 / 400). */
function mapMultipartError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof SpoolFullError) return spoolFull();
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_FILES_LIMIT') return validationFailed([issueAt('file', 'one_file_per_job')]);
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return validationFailed([issueAt('', 'too_many_form_fields')]);
  }
  const message = (error as Error | null)?.message ?? '';
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || /multipart|boundary|Unexpected end of (form|multipart)/i.test(message)) {
    return new ApiError({ code: 'invalid_request', messageKey: 'invalid_multipart', status: 400, details: { reason: 'invalid_multipart' } });
  }
  return error;
}
