#!/usr/bin/env bash
# Installs (if missing) and starts every real server the tests need, on loopback. Idempotent:
# a server already running and healthy costs one health check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# dovecot before postfix: Postfix delivers into Dovecot over LMTP. libreoffice and chromium are
# programs, not servers (file fixtures; the web page's browser tests).
for server in chdb kafka libreoffice chromium sshd dovecot postfix; do
  bash "$here/$server.sh" start
done
# Not a server: the API fuzzer of test/e2e/api-fuzz.test.ts, installed here once so that the
# test's own (idempotent) install finds it ready.
bash "$here/schemathesis.sh" install
