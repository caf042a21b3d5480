#!/usr/bin/env bash
# Installs (if missing) and starts every real server the tests need, on loopback. Idempotent:
# a server already running and healthy costs one health check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
<<<<<<< HEAD
# dovecot before postfix: Postfix delivers into Dovecot over LMTP.
for server in clickhouse kafka sshd dovecot postfix; do
=======
for server in clickhouse kafka libreoffice; do
>>>>>>> main
  bash "$here/$server.sh" start
done
