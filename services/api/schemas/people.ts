import { z } from 'zod';
import { boundedString, named } from './registry.ts';

/** The portal's people, sessions, API keys, audit log and settings (docs/people.md). */
export const RoleSchema = z.enum(['admin', 'member']).describe('admin: users, keys, settings and channels; member: files, jobs and monitors');

const email = z.email().max(200).describe('E-mail address (the sign-in name)');

export const UserSchema = named('User', z.strictObject({
  id: z.uuid(),
  email: z.string(),
  role: RoleSchema,
  status: z.enum(['invited', 'active', 'removed']).describe('invited: the link is sent, no password yet'),
  created_at: z.string(),
}), 'A person of the organisation who uses the portal.');

export const UserListSchema = named('UserList', z.strictObject({ data: z.array(UserSchema) }));

export const InviteUserRequestSchema = named('InviteUserRequest', z.strictObject({
  email,
  role: RoleSchema.default('member'),
}));

export const SetRoleRequestSchema = named('SetRoleRequest', z.strictObject({ role: RoleSchema }));

export const SignInRequestSchema = named('SignInRequest', z.strictObject({
  email: boundedString().describe('E-mail address'),
  password: boundedString().describe('Password'),
  code: z.string().max(20).describe('The 6-digit code from the authenticator app (TOTP), or one of the person\'s recovery codes (each works once)'),
  mode: z.enum(['live', 'test']).default('live').describe("Work on live jobs (default) or the organisation's test jobs"),
}));

export const SessionSchema = named('Session', z.strictObject({
  user: UserSchema,
  organisation: z.strictObject({ id: z.uuid(), name: z.string() }),
  mode: z.enum(['live', 'test']),
  csrf_token: z.string().describe('Send as X-CSRF-Token on every request that changes something'),
  expires_at: z.string(),
}), 'The signed-in person (a session cookie).');

export const SignedOutSchema = named('SignedOut', z.strictObject({ signed_out: z.literal(true) }));

export const RecoveryCodesSchema = named('RecoveryCodes', z.strictObject({
  codes: z.array(z.string()).optional().describe('The new codes, shown this once (only in the answer that made them)'),
  remaining: z.int().min(0).describe('Codes of the current set not used yet'),
}), 'Recovery codes: each signs in once in place of the code from the authenticator app.');

export const InvitationSchema = named('Invitation', z.strictObject({
  email: z.string(),
  organisation: z.string(),
  role: RoleSchema,
  totp_secret: z.string().describe('Base32 secret to add to an authenticator app'),
  otpauth_uri: z.string().describe('The same secret as an otpauth:// URI (what a QR code would hold)'),
}), 'An open invitation: who it is for and the second factor to set up.');

export const AcceptInvitationRequestSchema = named('AcceptInvitationRequest', z.strictObject({
  password: z.string().max(1000).describe('12 to 200 characters'),
  code: z.string().max(20).describe('A current code from the authenticator app, proving it was set up'),
}));

export const ApiKeySchema = named('ApiKey', z.strictObject({
  id: z.uuid(),
  label: z.string(),
  mode: z.enum(['live', 'test']),
  prefix: z.string().describe('The first characters of the key, to tell keys apart'),
  created_at: z.string(),
  created_by: z.string().nullable().describe('The user who made it; null: issued by the operator'),
  revoked_at: z.string().nullable(),
}), 'An API key (never its text, which is shown once when it is created).');

export const ApiKeyListSchema = named('ApiKeyList', z.strictObject({ data: z.array(ApiKeySchema) }));

export const CreateApiKeyRequestSchema = named('CreateApiKeyRequest', z.strictObject({
  label: z.string().trim().min(1).max(100).describe('What the key is for'),
  mode: z.enum(['live', 'test']).default('live'),
}));

export const CreatedApiKeySchema = named('CreatedApiKey', z.strictObject({
  key: z.string().describe('The key text: shown this once, store it now'),
  api_key: ApiKeySchema,
}));

export const AuditEntrySchema = named('AuditEntry', z.strictObject({
  id: z.string(),
  at: z.string(),
  actor_kind: z.enum(['user', 'key']),
  actor_id: z.string(),
  actor: z.string().nullable().describe("The user's e-mail or the key's label; null when unknown"),
  action: z.string(),
  target: z.string().nullable(),
}));

export const AuditLogSchema = named('AuditLog', z.strictObject({
  data: z.array(AuditEntrySchema),
  has_more: z.boolean(),
}), 'Who did what, newest first: ids and actions, never a contact\'s data.');

export const AuditQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Entries to list (1-200, default 50)'),
  before: z.iso.datetime().optional().describe('Only entries older than this instant (the last `at` of the previous page)'),
});

export const SettingsSchema = named('Settings', z.strictObject({
  stop_level: z.number().int().min(1).max(5).describe('The stop line: a match at this level or higher is blocked'),
  retention_days: z.number().int().min(1).max(90).describe('Days a job and its results are kept'),
}), "The organisation's settings.");

export const UpdateSettingsRequestSchema = named('UpdateSettingsRequest', z.strictObject({
  stop_level: z.number().int().min(1).max(5).optional(),
  retention_days: z.number().int().min(1).max(90).optional(),
}));
