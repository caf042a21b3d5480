-- Recovery codes of the portal's people (PeopleStore, docs/people.md "Recovery codes"): SHA-256
-- hashes only, one row per code; a set is written in one insert, and the newest set of a user is
-- the current one (a new set voids the old). A code is used once through a claim in
-- portal_claims (`recovery/<user>/<set>/<hash>`), as TOTP steps are. Numbered 024 to stay clear
-- of migrations other branches may add meanwhile (numbers need only be increasing).
CREATE TABLE IF NOT EXISTS {database}.portal_recovery_codes (
  user_id String,
  set_id String,
  code_hash String,
  created_at String
) ENGINE = MergeTree ORDER BY (user_id, set_id, code_hash);
