#!/usr/bin/env bash
# Chromium for the web page's browser tests (test/e2e/web-page.test.ts): Debian's `chromium`
# package, driven by playwright-core through executablePath (Playwright's own browser download
# needs network the machines do not have). No server and no port: each test file launches its own
# headless browser.
#
#   chromium.sh start    install if missing (idempotent), then check that the browser runs
#   chromium.sh status   exit 0 when /usr/bin/chromium is installed
set -euo pipefail

log() { echo "[chromium] $*" >&2; }

BIN="${CHROMIUM_PATH:-/usr/bin/chromium}"
installed() { [[ -x "$BIN" ]]; }

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to install chromium with apt"; return 1
  fi
}

case "${1:-start}" in
  start)
    if ! installed; then
      log "installing chromium"
      as_root apt-get update -o DPkg::Lock::Timeout=600 >/dev/null
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=600 --no-install-recommends chromium fonts-dejavu-core >/dev/null
    fi
    # --version answers without opening a window: proof the install is usable.
    "$BIN" --version >/dev/null 2>&1 || { log "$BIN does not run"; exit 1; }
    ;;
  status) installed ;;
  *) echo "usage: $0 start|status" >&2; exit 2 ;;
esac
