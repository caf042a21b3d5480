#!/usr/bin/env bash
# A private Docker engine and the project's images, for testcontainers and the compose end-to-end
# test (docs/deployment.md). Host networking only: the engine runs without a bridge and without
# touching iptables, so every container port is a loopback port and no network is ever created.
#
#   docker.sh start    install docker.io/docker-compose/debootstrap with apt if missing, start the
#                      engine if not running, build the images whose inputs changed (idempotent:
#                      a running engine with current images costs one `docker info` and hashes)
#   docker.sh install  only the apt part of start (up.sh runs it before the other servers' apt)
#   docker.sh stop     stop the engine started by this script (images and volumes stay)
#   docker.sh status   exit 0 when the engine answers
#   docker.sh env      print DOCKER_HOST=… for this engine (eval "$(bash docker.sh env)")
#   docker.sh images   build the images only (the engine must run)
#
# State (socket, data root, exec root, pid, logs) under
# ${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/docker (DOCKER_STATE_DIR overrides).
# Images, each tagged with the hash of its inputs and `:current`:
#   robinson-base       Debian bookworm from `debootstrap --variant=minbase` (public image
#                       registries are unreachable here), plus this machine's trust store
#   robinson-check      infra/docker/Dockerfile (every service) built FROM robinson-base
#   robinson-kafka      infra/docker/kafka.Dockerfile: infra/local/kafka.sh's broker and jars
#   robinson-clickhouse infra/docker/clickhouse.Dockerfile: infra/local/chdb.sh's 25.8 engine front
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
base="${DOCKER_STATE_DIR:-${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/docker}"
socket="$base/docker.sock"
pid_file="$base/dockerd.pid"
log_file="$base/dockerd.log"
export DOCKER_HOST="unix://$socket"
# Debian's client (20.10) matches the engine; another docker on PATH may be newer and chattier.
docker_cli="$(command -v /usr/bin/docker || command -v docker || true)"

log() { echo "[docker] $*" >&2; }
dk() { "$docker_cli" "$@"; }

answers() { [[ -S "$socket" && -n "$docker_cli" ]] && dk info >/dev/null 2>&1; }

install_if_missing() {
  if command -v dockerd >/dev/null && [[ -x /usr/bin/docker ]] && command -v docker-compose >/dev/null &&
    command -v debootstrap >/dev/null; then
    return 0
  fi
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
    log "dockerd, docker-compose and debootstrap are needed (apt: docker.io docker-compose debootstrap)"; return 1
  fi
  mkdir -p "$base"
  log "installing docker.io, docker-compose and debootstrap with apt (one-off)"
  # The package would start the system's dockerd (with its docker0 bridge and iptables rules) where
  # an init system lets it; policy-rc.d 101 forbids that for the duration of the install.
  local own_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && own_policy=1
  fi
  local status=0
  {
    DEBIAN_FRONTEND=noninteractive apt-get update -qq -o DPkg::Lock::Timeout=600 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
        --no-install-recommends docker.io docker-compose debootstrap
  } >"$base/apt.log" 2>&1 || status=$?
  [[ -n "$own_policy" ]] && rm -f /usr/sbin/policy-rc.d
  if ((status != 0)); then log "apt-get failed:"; tail -n 30 "$base/apt.log" >&2; return 1; fi
  docker_cli=/usr/bin/docker
}

engine_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid; pid="$(cat "$pid_file")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q dockerd && echo "$pid"
}

start_engine() {
  if answers; then return 0; fi
  mkdir -p "$base/data" "$base/exec"
  if ! engine_pid >/dev/null; then
    rm -f "$socket"
    # --bridge=none: no docker0 and no default bridge network; containers get `host` or `none`.
    # --iptables/--ip6tables=false: the host's packet filter stays as it is. Own socket, data root
    # and exec root: this engine shares nothing with any other Docker on the machine (its own
    # containerd is started under the exec root). It must not inherit the locks (fds 8, 9): it would
    # hold them for as long as it runs.
    setsid dockerd --bridge=none --iptables=false --ip6tables=false --ip-forward=false \
      --ip-masq=false --userland-proxy=false \
      --data-root "$base/data" --exec-root "$base/exec" --pidfile "$base/dockerd-own.pid" \
      -H "unix://$socket" >"$log_file" 2>&1 </dev/null 8>&- 9>&- &
    echo $! >"$pid_file"
  fi
  local deadline=$((SECONDS + 60))
  until answers; do
    # kill -0, not engine_pid: right after the fork the child may not have exec'd dockerd yet.
    if ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then log "dockerd exited during start:"; tail -n 30 "$log_file" >&2; return 1; fi
    if ((SECONDS >= deadline)); then log "dockerd did not answer within 60 s:"; tail -n 30 "$log_file" >&2; return 1; fi
    sleep 0.2
  done
  log "engine ready on $DOCKER_HOST"
}

# Hash of files' contents and names (sorted), for the image tags: an image is rebuilt exactly when
# one of its inputs changed.
hash_inputs() {
  (cd "$repo" && find "$@" -type f ! -name '*.log' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
    sha256sum | cut -c1-16
}

image_exists() { dk image inspect "$1" >/dev/null 2>&1; }

tag_current() { dk tag "$1:$2" "$1:current"; }

build_base() {
  # The root file system depends only on the suite and the variant; the trust store is this
  # machine's (its egress may re-sign TLS), copied in so apt/npm/pip inside trust what the host trusts.
  local trust; trust="$({ cat /etc/ssl/certs/ca-certificates.crt /usr/local/share/ca-certificates/*.crt 2>/dev/null || true; } | sha256sum | cut -c1-8)"
  local tag="bookworm-minbase-1-$trust"
  base_image="robinson-base:$tag"
  if image_exists "$base_image"; then tag_current robinson-base "$tag"; return 0; fi
  local root="$base/rootfs"
  rm -rf "$root"; mkdir -p "$root"
  log "debootstrap --variant=minbase bookworm (one-off, ~30 s from Debian's mirror)"
  if ! debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$base/debootstrap.log" 2>&1; then
    log "debootstrap failed:"; tail -n 30 "$base/debootstrap.log" >&2; return 1
  fi
  mkdir -p "$root/etc/ssl/certs" "$root/usr/local/share/ca-certificates"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
  # apt inside the image: no recommends, no docs, keep the images small.
  printf 'APT::Install-Recommends "false";\n' >"$root/etc/apt/apt.conf.d/90robinson"
  rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
  tar -C "$root" -c . | dk import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["bash"]' - "$base_image" >/dev/null
  rm -rf "$root"
  tag_current robinson-base "$tag"
  log "built $base_image"
}

# build NAME DOCKERFILE CONTEXT HASH: `docker build` on the host network (no bridge exists) unless
# NAME:HASH exists; build logs go to the state dir.
build_image() {
  local name="$1" dockerfile="$2" context="$3" hash="$4"
  if image_exists "$name:$hash"; then tag_current "$name" "$hash"; return 0; fi
  log "building $name:$hash"
  local started=$SECONDS
  if ! dk build --network host --build-arg "BASE_IMAGE=$base_image" --label "robinson.inputs=$hash" \
    -f "$dockerfile" -t "$name:$hash" "$context" >"$base/build-$name.log" 2>&1; then
    log "building $name failed:"; tail -n 40 "$base/build-$name.log" >&2; return 1
  fi
  tag_current "$name" "$hash"
  log "built $name:$hash in $((SECONDS - started)) s"
}

build_kafka() {
  local version; version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/kafka/pom.xml")"
  local hash; hash="$(hash_inputs infra/docker/kafka.Dockerfile infra/local/kafka.sh infra/local/kafka/pom.xml)-${base_image##*:}"
  hash="$(echo "$hash" | sha256sum | cut -c1-16)"
  image_exists "robinson-kafka:$hash" && { tag_current robinson-kafka "$hash"; return 0; }
  # The very jars infra/local/kafka.sh resolved from Maven Central (it resolves them if missing).
  local libs="${ROBINSON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/robinson}/kafka-$version/libs"
  [[ -f "$libs/.resolved" ]] || bash "$here/kafka.sh" resolve
  local context="$base/context-kafka"
  rm -rf "$context"; mkdir -p "$context/infra/local/kafka"
  cp "$here/kafka.sh" "$context/infra/local/"
  cp "$here/kafka/pom.xml" "$context/infra/local/kafka/"
  cp -r "$libs" "$context/libs"
  build_image robinson-kafka "$repo/infra/docker/kafka.Dockerfile" "$context" "$hash"
  rm -rf "$context"
}

build_clickhouse() {
  local hash; hash="$(hash_inputs infra/docker/clickhouse.Dockerfile infra/local/chdb.sh infra/local/chdb)-${base_image##*:}"
  hash="$(echo "$hash" | sha256sum | cut -c1-16)"
  build_image robinson-clickhouse "$repo/infra/docker/clickhouse.Dockerfile" "$repo" "$hash"
}

build_service() {
  # The files infra/docker/Dockerfile copies (see .dockerignore).
  local hash; hash="$(hash_inputs infra/docker/Dockerfile package.json package-lock.json tsconfig.json services schemas infra/clickhouse infra/topics.ts)-${base_image##*:}"
  hash="$(echo "$hash" | sha256sum | cut -c1-16)"
  build_image robinson-check "$repo/infra/docker/Dockerfile" "$repo" "$hash"
}

images() {
  mkdir -p "$base"
  exec 8>"$base/images.lock"
  flock 8 # two concurrent runs must not build the same image twice
  build_base
  # Independent builds in parallel: each is mostly downloads (apt, pip, npm), so they overlap well.
  local pids=() failed=0
  build_kafka & pids+=($!)
  build_clickhouse & pids+=($!)
  build_service & pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  ((failed == 0)) || return 1
}

start() {
  mkdir -p "$base"
  exec 9>"$base/engine.lock"
  flock 9
  install_if_missing
  start_engine
  images
}

stop() {
  local pid
  if ! pid="$(engine_pid)"; then rm -f "$pid_file"; log "not running"; return 0; fi
  kill -TERM "$pid"
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || { rm -f "$pid_file"; log "stopped"; return 0; }; sleep 0.2; done
  log "no clean shutdown within 30 s; killing pid $pid"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pid_file"
}

case "${1:-}" in
  start) start ;;
  install) mkdir -p "$base"; install_if_missing ;;
  stop) stop ;;
  status) if answers; then log "answering on $DOCKER_HOST"; else log "not answering on $DOCKER_HOST"; exit 1; fi ;;
  env) echo "DOCKER_HOST=$DOCKER_HOST" ;;
  images) images ;;
  *) echo "usage: $0 start|install|stop|status|env|images" >&2; exit 2 ;;
esac
