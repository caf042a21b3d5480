#!/usr/bin/env bash
# Schemathesis (the API fuzzer, from PyPI) in its own virtualenv under the local state dir
# ${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/schemathesis, pinned. No server and no port:
# test/integration/api/fuzz.test.ts runs it against a server it starts itself.
#
#   schemathesis.sh install   create the venv and install the pinned version when missing (idempotent)
#   schemathesis.sh path      print the path of the `st` command (after install)
#
# Installed at the pinned version only: a venv holding another version is rebuilt. Python 3 with
# its venv module comes from apt when missing (python3-venv).
set -euo pipefail

version="4.32.5"
base="${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/schemathesis"
venv="$base/venv-$version"
st="$venv/bin/st"

log() { echo "[schemathesis] $*" >&2; }

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to install python3-venv with apt"; return 1
  fi
}

installed() { [[ -x "$st" ]] && "$venv/bin/python" -c "import schemathesis" 2>/dev/null; }

install() {
  installed && return 0
  mkdir -p "$base"
  if ! python3 -m venv --help >/dev/null 2>&1; then
    log "installing python3-venv with apt"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
      --no-install-recommends python3 python3-venv >"$base/apt.log" 2>&1 || { tail -n 30 "$base/apt.log" >&2; return 1; }
  fi
  # Another process may be installing at the same time (parallel test files): one at a time,
  # the second finds it installed.
  exec 9>"$base/install.lock"
  flock 9
  installed && return 0
  log "installing schemathesis $version into $venv (one-off: about a minute)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" >"$base/pip.log" 2>&1; then
    log "pip install failed:"; tail -n 30 "$base/pip.log" >&2; rm -rf "$venv"; return 1
  fi
  installed
}

case "${1:-}" in
  install) install ;;
  path) installed && echo "$st" ;;
  *) echo "usage: $0 install|path" >&2; exit 2 ;;
esac
