#!/usr/bin/env bash
# Stops every server up.sh started. Data and caches stay for the next start.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for server in postfix dovecot sshd kafka chdb; do
  bash "$here/$server.sh" stop || true
done
