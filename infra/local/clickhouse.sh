#!/usr/bin/env bash
# ClickHouse for tests and local runs: Debian's clickhouse-server (18.16), installed with apt when
# missing, run as a plain background process (no systemd, no init script) with its own config and
# data under $ROBINSON_LOCAL (default ${TMPDIR:-/tmp}/robinson-local), on loopback only:
# HTTP 127.0.0.1:18123, native 127.0.0.1:19000 (not the default ports, so a system ClickHouse can
# run beside it).
#
#   clickhouse.sh start    install if missing, start if not running, wait for /ping (idempotent)
#   clickhouse.sh stop     stop the server started by this script (data stays)
#   clickhouse.sh status   exit 0 when /ping answers
#
# A server that is already healthy costs one HTTP request. On failure the log tail is printed.
set -euo pipefail

base="${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/clickhouse"
http_port="${CLICKHOUSE_HTTP_PORT:-18123}"
tcp_port="${CLICKHOUSE_TCP_PORT:-19000}"
conf_dir="$base/etc"
data_dir="$base/data"
log_dir="$base/log"
pid_file="$base/clickhouse.pid"
ping_url="http://127.0.0.1:$http_port/ping"

log() { echo "[clickhouse] $*" >&2; }

healthy() {
  # /ping answers "Ok." when the server accepts queries.
  [[ "$(curl -fsS --max-time 2 "$ping_url" 2>/dev/null || true)" == Ok.* ]]
}

server_binary() {
  command -v clickhouse-server 2>/dev/null || { [[ -x /usr/sbin/clickhouse-server ]] && echo /usr/sbin/clickhouse-server; } || true
}

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to install clickhouse-server with apt"; return 1
  fi
}

install_if_missing() {
  [[ -n "$(server_binary)" ]] && command -v curl >/dev/null && return 0
  log "installing clickhouse-server with apt (one-off: seconds to a minute)"
  # The package's postinst starts the system service on the default ports through invoke-rc.d;
  # a policy-rc.d that answers 101 forbids that. Only add one when the machine has none.
  local added_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'
    added_policy=1
  fi
  local status=0
  {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        clickhouse-server curl
  } >"$base/apt.log" 2>&1 || status=$?
  [[ -n "$added_policy" ]] && as_root rm -f /usr/sbin/policy-rc.d
  if [[ $status != 0 ]]; then
    log "apt-get failed ($status):"; tail -n 30 "$base/apt.log" >&2; return 1
  fi
}

write_config() {
  mkdir -p "$conf_dir" "$data_dir/tmp" "$data_dir/user_files" "$data_dir/format_schemas" "$log_dir"
  # <yandex> is the root element 18.16 understands (current releases accept it too).
  cat >"$conf_dir/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger>
    <level>information</level>
    <log>$log_dir/clickhouse-server.log</log>
    <errorlog>$log_dir/clickhouse-server.err.log</errorlog>
    <size>50M</size>
    <count>2</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$http_port</http_port>
  <tcp_port>$tcp_port</tcp_port>
  <path>$data_dir/</path>
  <tmp_path>$data_dir/tmp/</tmp_path>
  <user_files_path>$data_dir/user_files/</user_files_path>
  <format_schema_path>$data_dir/format_schemas/</format_schema_path>
  <users_config>$conf_dir/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <max_concurrent_queries>100</max_concurrent_queries>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mlock_executable>false</mlock_executable>
</yandex>
EOF
  cat >"$conf_dir/users.xml" <<'EOF'
<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</yandex>
EOF
}

running_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid; pid="$(cat "$pid_file")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

show_log_tail() {
  for f in "$log_dir/stdout.log" "$log_dir/clickhouse-server.err.log" "$log_dir/clickhouse-server.log"; do
    [[ -s "$f" ]] && { log "--- tail of $f"; tail -n 25 "$f" >&2; }
  done
  return 0
}

start() {
  if healthy; then return 0; fi
  mkdir -p "$base"
  install_if_missing
  if running_pid >/dev/null; then
    log "process $(cat "$pid_file") exists but /ping does not answer yet; waiting"
  else
    write_config
    local bin; bin="$(server_binary)"
    # setsid + nohup: the server outlives this script and the test run that called it.
    setsid nohup "$bin" --config-file="$conf_dir/config.xml" >"$log_dir/stdout.log" 2>&1 </dev/null &
    echo $! >"$pid_file"
  fi
  local waited=0
  until healthy; do
    if ! running_pid >/dev/null; then
      log "clickhouse-server exited during start"; show_log_tail; rm -f "$pid_file"; return 1
    fi
    if (( waited >= 600 )); then  # 60 s
      log "no answer on $ping_url after 60 s"; show_log_tail; return 1
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  log "ready on $ping_url (data in $data_dir, logs in $log_dir)"
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
  status) if healthy; then log "healthy on $ping_url"; else log "not answering on $ping_url"; exit 1; fi ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
