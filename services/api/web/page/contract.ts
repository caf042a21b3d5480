/**
 * Types shared by the page and the server that serves it. Types only: nothing here reaches the
 * browser at run time (the server's build refuses non-sibling imports; `import type` is erased).
 */
export type { CheckJob } from '../../schemas/check-job.ts';
export type { Monitor } from '../../schemas/monitor.ts';
export type { CheckResult } from '../../../domain/types.ts';

export type Locale = 'da' | 'en';

/** /app/texts.json, made by services/api/web/assets.ts from the service's catalogues. */
export interface PageTexts {
  messages: Record<Locale, Record<string, string>>;
  /** ColumnMapping's fields (without header_row), in the schema's order. */
  fields: string[];
  /** Level 0..5 → the match code's label (the same text results carry). */
  levels: Record<Locale, string[]>;
  /** The result file's appended column headers (status, level, code, reasons, list version). */
  verdict_headers: Record<Locale, readonly string[]>;
  /** The API's error sentences in both languages (services/api/messages.ts): a shown error is translated on a language switch. */
  api_messages: Array<Record<Locale, string>>;
  /** The API's issue texts with a value in them (`{n}`, `{options}`, `{format}`), in both languages. */
  api_templates: Array<Record<Locale, string>>;
  /** An issue's API path (`host_public_key`) → the field in words (page-messages.ts FIELD_LABELS). */
  field_labels: Record<Locale, Record<string, string>>;
  /** The API's "See details.issues" sentence in both languages: the page says its own instead. */
  api_validation: Record<Locale, string>;
}

/** The API's error body (docs/decisions.md §5), as the page shows it. */
export interface ApiProblem {
  status: number;
  code: string;
  message: string;
  request_id: string | null;
  details?: { reason?: string; issues?: Array<{ path: string; message: string }>; [key: string]: unknown };
}

export type Role = 'admin' | 'member';

/** The people API's shapes (services/api/schemas/people.ts), as the page reads them. */
export interface PortalUser {
  id: string;
  email: string;
  role: Role;
  status: 'invited' | 'active' | 'removed';
  created_at: string;
}

export interface SessionInfo {
  user: PortalUser;
  organisation: { id: string; name: string };
  mode: 'live' | 'test';
  csrf_token: string;
  expires_at: string;
}

export interface Invitation {
  email: string;
  organisation: string;
  role: Role;
  totp_secret: string;
  otpauth_uri: string;
}

export interface ApiKeyInfo {
  id: string;
  label: string;
  mode: 'live' | 'test';
  prefix: string;
  created_at: string;
  created_by: string | null;
  revoked_at: string | null;
}

export interface AuditItem {
  id: string;
  at: string;
  actor_kind: 'user' | 'key';
  actor_id: string;
  actor: string | null;
  action: string;
  target: string | null;
}

export interface Settings {
  stop_level: number;
  retention_days: number;
}

/** The channels API's shapes (services/api/schemas/channels.ts), as the page reads them. */
export interface EmailSender {
  address: string;
  locale: 'da' | 'en' | null;
  created_at: string;
}

export interface DropFolderInfo {
  id: string;
  host: string;
  port: number;
  username: string;
  host_key_sha256: string;
  auth: 'key' | 'password';
  path: string;
  locale: 'da' | 'en';
  mapping: 'saved' | 'guessed';
  monitor_id: string | null;
  created_at: string;
  last_ok_at: string | null;
  last_error_at: string | null;
  failures: number;
}

export interface ConnectorInfo {
  id: string;
  url: string;
  auth_header_name: string | null;
  interval_seconds: number;
  target: 'job' | 'monitor';
  monitor_id: string | null;
  mapping: 'saved' | 'guessed';
  created_at: string;
  last_ok_at: string | null;
  last_error_at: string | null;
  failures: number;
}

/** A saved column mapping (services/api/schemas/column-mappings.ts), as the page reads it. */
export interface SavedColumnMapping {
  id: string;
  name: string;
  columns: string[];
  column_mapping: Record<string, number | string>;
  /** null: every channel of the organisation. */
  channels: MappingChannel[] | null;
  created_at: string;
}

/** The channels a saved mapping can be kept to (services/domain/saved-mapping.ts MAPPING_CHANNELS). */
export const MAPPING_CHANNELS = ['upload', 'sftp', 'email', 'connector'] as const;
export type MappingChannel = (typeof MAPPING_CHANNELS)[number];
