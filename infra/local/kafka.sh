#!/usr/bin/env bash
# Apache Kafka for tests and local runs: a single KRaft node (broker + controller in one JVM) run
# from its Maven Central jars with the machine's Java 17. No tarball, no Docker.
#
#   kafka.sh start    resolve the jars if missing, format storage once, start if not running,
#                     wait until the broker answers (idempotent; a healthy broker costs one probe)
#   kafka.sh stop     stop the broker started by this script (data stays for the next start)
#   kafka.sh status   exit 0 when the broker answers
#   kafka.sh reset    stop and wipe the data (every test leaves its own topics behind)
#   kafka.sh resolve  only resolve the jars (infra/local/docker.sh copies them into its image)
#   kafka.sh run      the broker in the foreground, as a container's command (same settings)
#
# The version is pinned in infra/local/kafka/pom.xml. Jars are cached under
# ${ROBINSON_CACHE:-~/.cache/robinson}/kafka-<version>/libs; data, config, pid and logs live under
# ${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/kafka (KAFKA_STATE_DIR overrides). Ports:
# KAFKA_PORT (default 19092, the broker) and KAFKA_CONTROLLER_PORT (default 19093), on 127.0.0.1
# only. A second, independent broker (used by the broker-restart test) is the same script with
# other ports and another KAFKA_STATE_DIR.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
pom="$here/kafka/pom.xml"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")"
cache="${ROBINSON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/robinson}/kafka-$version"
libs="$cache/libs"
port="${KAFKA_PORT:-19092}"
controller_port="${KAFKA_CONTROLLER_PORT:-19093}"
base="${KAFKA_STATE_DIR:-${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/kafka}"
conf_dir="$base/config"
data_dir="$base/data"
log_dir="$base/logs"
pid_file="$base/kafka.pid"
start_timeout="${KAFKA_START_TIMEOUT:-120}"
dependency_plugin="org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

log() { echo "[kafka:$port] $*" >&2; }

pid_alive() {
  # The pid must still be our broker: after a reboot the number may belong to anything.
  [[ -f "$pid_file" ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$(cat "$pid_file")/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'
}

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

node_binary() {
  # Node 24 from the node devDependency when installed; any node runs the plain-JS probe.
  if [[ -x "$repo/node_modules/.bin/node" ]]; then echo "$repo/node_modules/.bin/node"; else command -v node || true; fi
}

healthy() {
  # The broker answers a kafkajs metadata request and lists itself: proves the listener, the
  # controller quorum and the protocol versions kafkajs negotiates. Without kafkajs installed
  # (before npm ci) an open port is all we can check.
  port_open || return 1
  local node; node="$(node_binary)"
  if [[ -n "$node" && -d "$repo/node_modules/kafkajs" ]]; then
    "$node" "$here/kafka/probe.mjs" "127.0.0.1:$port" >/dev/null 2>&1
  fi
}

show_logs() {
  for f in "$log_dir/server.log" "$log_dir/stdout.log" "$base/mvn.log"; do
    [[ -s "$f" ]] || continue
    echo "---- last lines of $f" >&2
    tail -n 40 "$f" >&2
  done
}

install_toolchain_if_missing() {
  # The machine image has Java 17 and Maven; a bare Debian gets them from apt (as root).
  command -v java >/dev/null && command -v mvn >/dev/null && return 0
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
    log "java (17+) and mvn are needed on PATH"; return 1
  fi
  log "installing Java 17 and Maven with apt (one-off)"
  mkdir -p "$base"
  if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless maven; } \
    >"$base/apt.log" 2>&1; then
    log "apt-get failed:"; tail -n 30 "$base/apt.log" >&2; return 1
  fi
}

install_if_missing() {
  local stamp="$libs/.resolved"
  local pom_sum; pom_sum="$(sha256sum "$pom" | cut -d' ' -f1)"
  [[ -f "$stamp" && "$(cat "$stamp")" == "$pom_sum" ]] && return 0
  install_toolchain_if_missing
  log "resolving Kafka $version jars from Maven Central into $libs (one-off)"
  mkdir -p "$cache"
  rm -rf "$libs.partial"
  if ! mvn -B -q -f "$pom" "$dependency_plugin:copy-dependencies" \
    -DincludeScope=runtime -DoutputDirectory="$libs.partial" >"$base/mvn.log" 2>&1; then
    log "mvn failed:"; tail -n 40 "$base/mvn.log" >&2; return 1
  fi
  rm -rf "$libs"
  mv "$libs.partial" "$libs"
  echo "$pom_sum" >"$stamp"
}

write_config() {
  local properties="${1:-$conf_dir/server.properties}"
  mkdir -p "$conf_dir" "$data_dir" "$log_dir"
  # Settings for tests: one node, nothing auto-created, groups form at once, small segments so
  # that short retention actually deletes (retention only removes closed segments), yet larger
  # than the biggest record batch topics accept (8 MiB, services/platform/log/kafka.ts).
  cat >"$properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$data_dir
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
log.segment.bytes=16777216
log.retention.hours=24
log.retention.check.interval.ms=60000
EOF
  cat >"$conf_dir/log4j2.properties" <<EOF
status = warn
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = $log_dir/server.log
appender.file.filePattern = $log_dir/server.log.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 20MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 2
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
logger.state.name = state.change.logger
logger.state.level = warn
logger.request.name = kafka.request.logger
logger.request.level = warn
EOF
}

java_args() {
  java_opts=(-Xms256m -Xmx768m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
    -Dlog4j2.configurationFile="$conf_dir/log4j2.properties" -Dkafka.logs.dir="$log_dir"
    -cp "$libs/*")
}

format_if_needed() {
  # Storage from another Kafka version is test data: start over rather than migrate it.
  if [[ -f "$base/version" && "$(cat "$base/version")" != "$version" ]]; then
    log "state was written by Kafka $(cat "$base/version"); wiping $data_dir"
    rm -rf "$data_dir"; mkdir -p "$data_dir"
  fi
  [[ -f "$data_dir/meta.properties" ]] && return 0
  local cluster_id
  # Base64 of 16 random bytes without '-': an id that starts with '-' is read by kafka-storage as
  # an option ("--cluster-id: expected one argument"), which failed about one start in 64.
  cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' 'AB' | tr -d '=')"
  java_args
  if ! java "${java_opts[@]}" kafka.tools.StorageTool format --standalone -t "$cluster_id" \
    -c "$conf_dir/server.properties" >"$log_dir/format.log" 2>&1; then
    log "storage format failed:"; tail -n 40 "$log_dir/format.log" >&2; return 1
  fi
  echo "$version" >"$base/version"
}

exit_status_of_started_broker() {
  # Only a broker this shell started is its child, so only then does `wait` know how it ended: a
  # broker that dies without a log line was killed, and the signal says by what kind of thing.
  [[ -n "${started_pid:-}" ]] || return 0
  local status=0
  wait "$started_pid" 2>/dev/null || status=$?
  if ((status > 128)); then echo " (killed by signal $((status - 128)))"; else echo " (exit status $status)"; fi
}

wait_until_healthy() {
  local deadline=$((SECONDS + start_timeout))
  while ((SECONDS < deadline)); do
    if ! pid_alive; then
      log "the broker exited during start-up$(exit_status_of_started_broker)"; show_logs; return 1
    fi
    if healthy; then return 0; fi
    sleep 0.5
  done
  log "the broker did not answer within ${start_timeout}s"; show_logs; return 1
}

config_current() {
  # A running broker keeps the settings it started with; this script's settings may have moved on.
  write_config "$conf_dir/server.properties.next"
  cmp -s "$conf_dir/server.properties" "$conf_dir/server.properties.next"
}

start() {
  mkdir -p "$base"
  exec 9>"$base/kafka.lock"
  flock 9 # two concurrent starts (parallel test runs) must not launch two brokers
  if pid_alive && ! config_current; then
    log "server.properties changed since the broker started; restarting it"
    stop
  fi
  if pid_alive; then
    if healthy; then log "running (pid $(cat "$pid_file"))"; return 0; fi
    log "pid $(cat "$pid_file") is starting; waiting"
    wait_until_healthy
    return
  fi
  rm -f "$pid_file"
  if port_open; then
    if healthy; then log "a broker not started by this script answers on 127.0.0.1:$port; using it"; return 0; fi
    log "127.0.0.1:$port is taken by another process"; return 1
  fi
  install_if_missing
  write_config
  format_if_needed
  local started=$SECONDS
  # setsid: the broker outlives the shell (npm test, a terminal) that started it.
  java_args
  setsid java "${java_opts[@]}" kafka.Kafka "$conf_dir/server.properties" \
    >"$log_dir/stdout.log" 2>&1 </dev/null 9>&- &
  started_pid=$!
  echo "$started_pid" >"$pid_file"
  wait_until_healthy
  log "started Kafka $version (pid $(cat "$pid_file")) in $((SECONDS - started))s; logs in $log_dir"
}

run() {
  # A container's main process: the same jars, settings and storage format as `start`, but the
  # JVM replaces this shell so that the engine's stop signal reaches the broker.
  mkdir -p "$base"
  install_if_missing
  write_config
  format_if_needed
  java_args
  log "running Kafka $version in the foreground"
  exec java "${java_opts[@]}" kafka.Kafka "$conf_dir/server.properties"
}

stop() {
  if ! pid_alive; then
    rm -f "$pid_file"; log "not running"; return 0
  fi
  local pid; pid="$(cat "$pid_file")"
  kill -TERM "$pid"
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$pid_file"; log "stopped"; return 0; }
    sleep 0.5
  done
  log "no clean shutdown within 30s; killing pid $pid"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pid_file"
}

status() {
  if healthy; then log "running${pid_file:+ (pid $(cat "$pid_file" 2>/dev/null || echo '?'))}"; return 0; fi
  log "not answering on 127.0.0.1:$port"; return 1
}

reset() {
  # Test topics accumulate (every test creates its own); this drops them all.
  stop
  rm -rf "$data_dir" "$base/version"
  log "data wiped; the next start formats fresh storage"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  reset) reset ;;
  # Under start's lock: up.sh runs docker.sh (which resolves for its image) beside kafka.sh start.
  resolve) mkdir -p "$base"; exec 9>"$base/kafka.lock"; flock 9; install_if_missing ;;
  run) run ;;
  *) echo "usage: $0 start|stop|status|reset|resolve|run" >&2; exit 2 ;;
esac
