-- The portal's people (PeopleStore, docs/people.md): users, invitations, sessions and the audit
-- log; API keys gain a label and the user who made them. Users, invitations and sessions are
-- rewritten whole with revision + 1 and read with FINAL, as organisations are. Single-use rules
-- (a TOTP step, an invitation link) are claims: one row per claim name, inserted with the
-- deduplication token of the claim, so of two racing writers only the first row is stored and
-- each reads back whose mark it holds. Numbered 020 to stay clear of migrations other branches
-- may add meanwhile (numbers need only be increasing).
CREATE TABLE IF NOT EXISTS {database}.portal_users (
  id String,
  revision UInt64,
  org_id LowCardinality(String),
  email String,
  role Enum8('admin' = 1, 'member' = 2),
  status Enum8('invited' = 1, 'active' = 2, 'removed' = 3),
  password_hash Nullable(String),
  totp_secret String,
  totp_last_step UInt64,
  sessions_valid_from String,
  created_at String
) ENGINE = ReplacingMergeTree(revision) ORDER BY id;

CREATE TABLE IF NOT EXISTS {database}.portal_invitations (
  token_hash String,
  user_id String,
  org_id LowCardinality(String),
  created_at String,
  expires_at String
) ENGINE = ReplacingMergeTree ORDER BY token_hash;

CREATE TABLE IF NOT EXISTS {database}.portal_sessions (
  token_hash String,
  revision UInt64,
  user_id String,
  org_id LowCardinality(String),
  mode Enum8('live' = 1, 'test' = 2),
  created_at String,
  expires_at String,
  revoked_at Nullable(String)
) ENGINE = ReplacingMergeTree(revision) ORDER BY token_hash;

CREATE TABLE IF NOT EXISTS {database}.portal_claims (
  claim String,
  mark String,
  at String
) ENGINE = MergeTree ORDER BY claim SETTINGS non_replicated_deduplication_window = 100000;

CREATE TABLE IF NOT EXISTS {database}.portal_audit (
  id String,
  org_id LowCardinality(String),
  at String,
  actor_kind Enum8('user' = 1, 'key' = 2),
  actor_id String,
  action LowCardinality(String),
  target Nullable(String)
) ENGINE = MergeTree ORDER BY (org_id, at, id);

ALTER TABLE {database}.api_keys ADD COLUMN IF NOT EXISTS label String DEFAULT '';
ALTER TABLE {database}.api_keys ADD COLUMN IF NOT EXISTS created_by Nullable(String);
