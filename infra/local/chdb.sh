#!/usr/bin/env bash
# ClickHouse 25.8 for tests and local runs: the ClickHouse 25.8.2.1 engine from PyPI (chdb 3.7.2,
# which runs in-process only) behind a small HTTP front (infra/local/chdb/front.py) that speaks
# ClickHouse's HTTP interface to @clickhouse/client. Installed into a venv when missing, run as a
# plain background process with its data under $ROBINSON_LOCAL (default
# ${TMPDIR:-/tmp}/robinson-local)/chdb, on loopback only: HTTP 127.0.0.1:18124 (18123 is the old
# 18.16 server's port, left alone).
#
#   chdb.sh start    install if missing, start if not running, wait for /ping (idempotent)
#   chdb.sh stop     stop the front started by this script (data stays)
#   chdb.sh status   exit 0 when /ping answers
#   chdb.sh install  only install the venv (infra/docker/clickhouse.Dockerfile does it at build)
#   chdb.sh run      the front in the foreground, as a container's command (CHDB_HOST: its address)
#
# A second, independent front (the fault suite restarts its own, test/faults/) is the same script
# with CHDB_HTTP_PORT and CHDB_STATE_DIR (its data, pid and log; the venv stays shared).
#
# A front that is already healthy costs one HTTP request. On failure the log tail is printed.
# pip honours PIP_INDEX_URL / PIP_FIND_LINKS for a mirror or a wheel cache.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
base="${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/chdb"
port="${CHDB_HTTP_PORT:-18124}"
chdb_version="3.7.2"  # carries the ClickHouse 25.8.2.1 engine (production runs 25.8)
venv="$base/venv"
state="${CHDB_STATE_DIR:-$base}"
data_dir="$state/data"
log_file="$state/front.log"
pid_file="$state/front.pid"
ping_url="http://127.0.0.1:$port/ping"

log() { echo "[chdb] $*" >&2; }

healthy() {
  # /ping answers "Ok." once the engine has loaded its databases.
  [[ "$(curl -fsS --max-time 2 "$ping_url" 2>/dev/null || true)" == Ok.* ]]
}

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to install $* with apt"; return 1
  fi
}

install_system_packages() {
  # python3-venv brings ensurepip; curl is the readiness probe.
  if python3 -c 'import ensurepip, venv' 2>/dev/null && command -v curl >/dev/null; then return 0; fi
  log "installing python3-venv and curl with apt"
  {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
        --no-install-recommends python3 python3-venv curl
  } >"$base/apt.log" 2>&1 || { log "apt-get failed:"; tail -n 30 "$base/apt.log" >&2; return 1; }
}

install_if_missing() {
  if [[ -x "$venv/bin/python" ]] &&
    [[ "$("$venv/bin/python" -c 'import chdb; print(chdb.__version__)' 2>/dev/null || true)" == "$chdb_version" ]]; then
    return 0
  fi
  install_system_packages
  log "installing chdb $chdb_version into $venv (one-off: a download of ~150 MB with its dependencies)"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "chdb==$chdb_version" >"$base/pip.log" 2>&1 ||
    { log "pip install failed:"; tail -n 30 "$base/pip.log" >&2; return 1; }
}

running_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid; pid="$(cat "$pid_file")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

start() {
  if healthy; then return 0; fi
  mkdir -p "$base" "$state" "$data_dir"
  install_if_missing
  if running_pid >/dev/null; then
    log "process $(cat "$pid_file") exists but /ping does not answer yet; waiting"
  else
    # setsid + nohup: the front outlives this script and the test run that called it.
    setsid nohup "$venv/bin/python" "$here/chdb/front.py" --data "$data_dir" --port "$port" \
      >"$log_file" 2>&1 </dev/null &
    echo $! >"$pid_file"
  fi
  local waited=0
  until healthy; do
    if ! running_pid >/dev/null; then
      log "the front exited during start:"; tail -n 25 "$log_file" >&2; rm -f "$pid_file"; return 1
    fi
    if (( waited >= 600 )); then  # 60 s
      log "no answer on $ping_url after 60 s:"; tail -n 25 "$log_file" >&2; return 1
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  log "ready on $ping_url (ClickHouse 25.8 engine, data in $data_dir)"
}

run() {
  # A container's main process: python replaces this shell so the engine's stop signal reaches it.
  mkdir -p "$base" "$state" "$data_dir"
  install_if_missing
  exec "$venv/bin/python" "$here/chdb/front.py" --data "$data_dir" --port "$port" --host "${CHDB_HOST:-127.0.0.1}"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then rm -f "$pid_file"; log "not running"; return 0; fi
  kill "$pid"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then log "still running after 10 s; sending KILL"; kill -9 "$pid"; fi
  rm -f "$pid_file"
  log "stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  install) mkdir -p "$base"; install_if_missing ;;
  run) run ;;
  status) if healthy; then log "healthy on $ping_url"; else log "not answering on $ping_url"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status|install|run" >&2; exit 2 ;;
esac
