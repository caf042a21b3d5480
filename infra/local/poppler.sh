#!/usr/bin/env bash
# poppler-utils for the certificate tests: Debian's pdftotext reads the text of the PDF
# certificates back (test/integration/api/certificate-pdf.test.ts), an independent reader of what
# pdfkit wrote. No server and no port.
#
#   poppler.sh start    install if missing (idempotent), then check that pdftotext runs
#   poppler.sh status   exit 0 when pdftotext is installed
set -euo pipefail

log() { echo "[poppler] $*" >&2; }

installed() { command -v pdftotext >/dev/null 2>&1; }

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to install poppler-utils with apt"; return 1
  fi
}

case "${1:-start}" in
  start)
    if ! installed; then
      log "installing poppler-utils"
      as_root apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends poppler-utils >/dev/null
    fi
    pdftotext -v >/dev/null 2>&1 || { log "pdftotext does not run"; exit 1; }
    ;;
  status) installed ;;
  *) echo "usage: $0 start|status" >&2; exit 2 ;;
esac
