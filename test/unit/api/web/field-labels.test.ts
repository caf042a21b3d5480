import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { pageTexts } from '../../../../services/api/web/assets.ts';
import { FIELD_LABELS } from '../../../../services/api/web/page-messages.ts';
import { textsFor } from '../../../../services/api/web/page/texts.ts';
import { message } from '../../../../services/api/messages.ts';
import { CheckJobFieldsSchema, CheckJobOptionsSchema, ColumnMappingSchema } from '../../../../services/api/schemas/check-job.ts';
import { AddConnectorRequestSchema, AddDropFolderRequestSchema, AddEmailSenderRequestSchema } from '../../../../services/api/schemas/channels.ts';
import { SaveColumnMappingRequestSchema } from '../../../../services/api/schemas/column-mappings.ts';
import { MonitorFieldsSchema } from '../../../../services/api/schemas/monitor.ts';
import {
  AcceptInvitationRequestSchema, CreateApiKeyRequestSchema, InviteUserRequestSchema, SetRoleRequestSchema, SignInRequestSchema, UpdateSettingsRequestSchema,
} from '../../../../services/api/schemas/people.ts';
import { PreviewCheckJobRequestSchema, StartCheckJobRequestSchema } from '../../../../services/api/routes/check-job-files.ts';

const danish = textsFor(pageTexts(), 'da');
const english = textsFor(pageTexts(), 'en');

/** The bodies the page sends (services/api/web/page/api.ts): a refusal of any of their fields names it. */
const PAGE_BODIES: Record<string, z.ZodObject> = {
  SignInRequestSchema, AcceptInvitationRequestSchema, InviteUserRequestSchema, SetRoleRequestSchema, CreateApiKeyRequestSchema,
  UpdateSettingsRequestSchema, AddEmailSenderRequestSchema, AddDropFolderRequestSchema, AddConnectorRequestSchema,
  SaveColumnMappingRequestSchema, StartCheckJobRequestSchema, PreviewCheckJobRequestSchema,
  // A file upload's and a monitor-from-a-file's form fields besides `file`.
  CheckJobFieldsSchema, MonitorFieldsSchema,
};

/** Every API path those bodies can be refused at: their fields, the file, the columns and options inside. */
function pagePaths(): string[] {
  return [
    ...Object.values(PAGE_BODIES).flatMap((schema) => Object.keys(schema.shape)),
    'file',
    ...Object.keys(ColumnMappingSchema.shape).map((field) => `column_mapping.${field}`),
    ...Object.keys(CheckJobOptionsSchema.shape).map((field) => `options.${field}`),
  ];
}

/** The pattern of an API path before a colon, as no issue line a person reads may hold. */
const RAW_PATH = /\b[a-z_]+(\.[a-z_]+|\[\d+\])+:|^[a-z]+_[a-z_]+:/;

describe('issue lines in words (services/api/web/page-messages.ts FIELD_LABELS, page/texts.ts fieldLabel)', () => {
  it('has words in both languages for every field of every body the page sends', () => {
    const paths = pagePaths();
    expect(paths.length).toBeGreaterThan(40);
    for (const texts of [danish, english]) {
      expect(paths.filter((path) => texts.fieldLabel(path) === null), texts.locale).toEqual([]);
      // The words are no API path: "host_public_key" never comes back as a label.
      expect(paths.map((path) => texts.fieldLabel(path)).filter((label) => RAW_PATH.test(`${label}:`) || /_/.test(label!)), texts.locale).toEqual([]);
    }
  });

  it('says the fields as the brief and the forms do', () => {
    expect(danish.fieldLabel('file')).toBe('Fil');
    expect(english.fieldLabel('file')).toBe('File');
    expect(danish.fieldLabel('column_mapping.name')).toBe('Navnekolonne');
    expect(english.fieldLabel('column_mapping.name')).toBe('Name column');
    expect(danish.fieldLabel('host_public_key')).toBe('Værtsnøgle');
    expect(english.fieldLabel('host_public_key')).toBe('Host key');
    expect(Object.keys(FIELD_LABELS)).toContain('interval_minutes');
  });

  it('says a row of a file counted from 1, as the draft\'s preview counts, with the field in the column picker\'s words', () => {
    expect(danish.fieldLabel('rows[0].name')).toBe('Række 1, Fulde navn');
    expect(english.fieldLabel('rows[1].name')).toBe('Row 2, Full name');
    expect(english.fieldLabel('rows[1233].postal_code')).toBe('Row 1,234, Postal code');
    expect(danish.fieldLabel('rows[1233].postal_code')).toBe('Række 1.234, Postnummer');
    // A person's id is the file's "your id" column; a field without words is left out, not shown raw.
    expect(english.fieldLabel('rows[4].id')).toBe('Row 5, Your id');
    expect(danish.fieldLabel('rows[4].kvhx')).toBe('Række 5');
    expect(danish.fieldLabel('people[2]')).toBe('Række 3');
  });

  it('has no words for a path it does not know (the line is then shown without a prefix)', () => {
    for (const path of ['', 'cursor', 'constructor', 'toString', '__proto__', 'rows[x].name', 'column_mapping.nope', 'a.b[3]']) {
      expect(danish.fieldLabel(path), path).toBeNull();
      expect(english.fieldLabel(path), path).toBeNull();
    }
    expect(english.fieldLabel('rows[1].constructor')).toBe('Row 2');
  });

  it('knows the API\'s "See details.issues" sentence in either language, and nothing else', () => {
    expect(danish.isApiValidation(message('validation', 'da'))).toBe(true);
    expect(danish.isApiValidation(message('validation', 'en'))).toBe(true);
    expect(english.isApiValidation(message('validation', 'da'))).toBe(true);
    expect(danish.isApiValidation(message('not_found', 'da'))).toBe(false);
    expect(message('validation', 'en')).toContain('details.issues');
  });
});
