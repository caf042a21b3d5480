#!/usr/bin/env bash
# LibreOffice for the file tests: Debian's libreoffice-calc-nogui (soffice --headless --convert-to
# writes the xlsx and xls fixtures of test/integration/files, as a customer's office suite would).
# No server and no port: soffice runs once per conversion batch (test/support/files/spreadsheets.ts,
# each run with its own -env:UserInstallation so parallel runs do not share a profile).
#
#   libreoffice.sh start    install if missing (idempotent), then check that soffice runs
#   libreoffice.sh status   exit 0 when soffice is installed
set -euo pipefail

log() { echo "[libreoffice] $*" >&2; }

installed() { command -v soffice >/dev/null 2>&1; }

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to install libreoffice-calc-nogui with apt"; return 1
  fi
}

case "${1:-start}" in
  start)
    if ! installed; then
      log "installing libreoffice-calc-nogui"
      as_root apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends libreoffice-calc-nogui >/dev/null
    fi
    # soffice --version answers without starting an office process: proof the install is usable.
    soffice --version >/dev/null || { log "soffice does not run"; exit 1; }
    ;;
  status) installed ;;
  *) echo "usage: $0 start|status" >&2; exit 2 ;;
esac
