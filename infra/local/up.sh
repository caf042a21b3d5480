#!/usr/bin/env bash
# Installs (if missing) and starts every real server the tests need, on loopback. Idempotent:
# a server already running and healthy costs one health check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# The private Docker engine and the project's images (docker.sh) for the container suites, in the
# background: the image builds are mostly downloads and take minutes from scratch, the other
# servers need none of them. Left out when ROBINSON_TESTCONTAINERS=0 (docs/deployment.md).
# Its apt install runs first, in the foreground: the other scripts' apt-get would find the
# package lists locked.
docker_pid=""
if [[ "${ROBINSON_TESTCONTAINERS:-}" != 0 ]]; then
  if bash "$here/docker.sh" install; then
    bash "$here/docker.sh" start &
    docker_pid=$!
  elif [[ "${CI:-}" == true ]]; then
    exit 1
  fi
fi
# dovecot before postfix: Postfix delivers into Dovecot over LMTP. libreoffice, poppler and
# chromium are programs, not servers (file fixtures; PDF certificates read back; the web page's
# browser tests).
for server in chdb kafka libreoffice poppler chromium sshd dovecot postfix; do
  bash "$here/$server.sh" start
done
# Not a server: the API fuzzer of test/e2e/api-fuzz.test.ts, installed here once so that the
# test's own (idempotent) install finds it ready.
bash "$here/schemathesis.sh" install
if [[ -n "$docker_pid" ]] && ! wait "$docker_pid"; then
  # Under CI the container suites must run, so no engine is a failure; elsewhere (a laptop without
  # root or Docker) the other suites still run and the container ones are left out.
  if [[ "${CI:-}" == true ]]; then exit 1; fi
  echo "[up] no Docker engine: the container suites are left out (ROBINSON_TESTCONTAINERS=0 skips this step)" >&2
fi
