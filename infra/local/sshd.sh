#!/usr/bin/env bash
# OpenSSH's sshd as the service's own SFTP server (docs/decisions.md §15), for tests and local runs: Debian's
# openssh-server, installed with apt when missing, run as its own process with its own config and
# host key under $ROBINSON_LOCAL/sshd (default ${TMPDIR:-/tmp}/robinson-local/sshd), listening on
# 127.0.0.1:12022 only (SFTP_PORT). The machine's own sshd (port 22) and /etc/ssh are not touched.
#
# Accounts: one system user per organisation in the group robinson-sftp, key authentication only,
# internal-sftp only, chrooted into $SFTP_ROOT/<user> (default /srv/robinson-sftp; a chroot and
# every directory above it must be root-owned and writable by no one else, which rules out /tmp).
# The chroot holds inbox/ outbox/ archive/ failed/ owned by the user. Authorized keys live outside
# the chroot in $SFTP_ROOT-keys/<user> (root-owned), so an account cannot change its own keys.
#
#   sshd.sh start                      install if missing, start if not running, wait for the banner
#   sshd.sh run                        write the config and run sshd in the foreground (a container's
#                                      main process: infra/docker/sftp-server.Dockerfile)
#   sshd.sh stop                       stop the sshd started by this script
#   sshd.sh status                     exit 0 when the server answers with its SSH banner
#   sshd.sh host-key                   print the server's public host key (for pinning)
#   sshd.sh add-account USER KEYFILE   create (or update) USER with the public key(s) in KEYFILE
#   sshd.sh remove-account USER        delete USER, its keys and its folders
#
# Needs root (or sudo) for the system users and the chroot directories.
set -euo pipefail

base="${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/sshd"
port="${SFTP_PORT:-12022}"
listen="${SFTP_LISTEN:-127.0.0.1}"
root_dir="${SFTP_ROOT:-/srv/robinson-sftp}"
keys_dir="${root_dir}-keys"
group="robinson-sftp"
conf="$base/sshd_config"
host_key="$base/ssh_host_ed25519_key"
pid_file="$base/sshd.pid"
log_file="$base/sshd.log"

log() { echo "[sshd] $*" >&2; }

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) for sshd accounts and chroot directories"; return 1
  fi
}

healthy() {
  # The server's own signal: an SSH server greets every connection with its "SSH-2.0-" banner.
  local banner=""
  { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
  IFS= read -r -t 2 banner <&3 || true
  exec 3<&- 3>&-
  [[ "$banner" == SSH-2.0-* ]]
}

install_if_missing() {
  [[ -x /usr/sbin/sshd ]] && command -v ssh-keygen >/dev/null && return 0
  log "installing openssh-server with apt"
  # The package's postinst would start the system sshd; a policy-rc.d answering 101 forbids that.
  local added_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'
    added_policy=1
  fi
  local status=0
  {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
        --no-install-recommends openssh-server openssh-client
  } >"$base/apt.log" 2>&1 || status=$?
  [[ -n "$added_policy" ]] && as_root rm -f /usr/sbin/policy-rc.d
  if [[ $status != 0 ]]; then log "apt-get failed ($status):"; tail -n 30 "$base/apt.log" >&2; return 1; fi
}

prepare_roots() {
  as_root sh -c "getent group $group >/dev/null || groupadd --system $group"
  as_root mkdir -p "$root_dir" "$keys_dir" /run/sshd
  as_root chown root:root "$root_dir" "$keys_dir"
  as_root chmod 755 "$root_dir" "$keys_dir"
}

write_config() {
  [[ -f "$host_key" ]] || ssh-keygen -q -t ed25519 -N '' -C robinson-local-sftp -f "$host_key"
  cat >"$conf" <<EOF
# Written by infra/local/sshd.sh: the service's SFTP server, loopback only.
Port $port
ListenAddress $listen
HostKey $host_key
PidFile $pid_file
AuthorizedKeysFile $keys_dir/%u
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin no
AllowGroups $group
# The drop-folder poller opens many sessions at once (one per organisation).
MaxStartups 100:30:200
MaxSessions 20
Subsystem sftp internal-sftp
Match Group $group
  ChrootDirectory $root_dir/%u
  ForceCommand internal-sftp -u 0007
  AllowTcpForwarding no
  AllowAgentForwarding no
  X11Forwarding no
  PermitTTY no
EOF
}

running_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid; pid="$(cat "$pid_file")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

start() {
  mkdir -p "$base"
  if healthy; then return 0; fi
  install_if_missing
  prepare_roots
  write_config
  if ! running_pid >/dev/null; then
    /usr/sbin/sshd -t -f "$conf" || { log "sshd rejected $conf"; return 1; }
    # -D: no daemonising (setsid keeps it alive after this script); -e: log to stderr (our file).
    setsid nohup /usr/sbin/sshd -D -e -f "$conf" >"$log_file" 2>&1 </dev/null &
    echo $! >"$pid_file"
  fi
  local waited=0
  until healthy; do
    if ! running_pid >/dev/null; then log "sshd exited during start"; tail -n 20 "$log_file" >&2; return 1; fi
    if (( waited >= 300 )); then log "no SSH banner on 127.0.0.1:$port after 30 s"; tail -n 20 "$log_file" >&2; return 1; fi
    sleep 0.1; waited=$((waited + 1))
  done
  log "ready on 127.0.0.1:$port (chroots in $root_dir, log $log_file)"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then rm -f "$pid_file"; log "not running"; return 0; fi
  kill "$pid"
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$pid_file"
  log "stopped"
}

valid_user() {
  [[ "$1" =~ ^[a-z_][a-z0-9_-]{0,30}$ ]] || { log "bad account name (a-z 0-9 _ -, at most 31)"; exit 2; }
}

add_account() {
  local user="$1" keyfile="$2"
  valid_user "$user"
  [[ -s "$keyfile" ]] || { log "no public key in $keyfile"; exit 2; }
  prepare_roots
  # '*' as password: no password login, and not "locked" (sshd refuses locked accounts without PAM).
  as_root sh -c "id -u '$user' >/dev/null 2>&1 || useradd --no-create-home --home-dir / --gid $group --shell /usr/sbin/nologin --password '*' '$user'"
  as_root install -d -o root -g root -m 755 "$root_dir/$user"
  for folder in inbox outbox archive failed; do
    as_root install -d -o "$user" -g "$group" -m 770 "$root_dir/$user/$folder"
  done
  as_root install -o root -g root -m 644 "$keyfile" "$keys_dir/$user"
  log "account $user ready (chroot $root_dir/$user)"
}

remove_account() {
  local user="$1"
  valid_user "$user"
  as_root rm -f "$keys_dir/$user"
  as_root sh -c "! id -u '$user' >/dev/null 2>&1 || userdel '$user'"
  as_root rm -rf "${root_dir:?}/$user"
}

run_foreground() {
  mkdir -p "$base"
  prepare_roots
  write_config
  exec /usr/sbin/sshd -D -e -f "$conf"
}

case "${1:-}" in
  start) start ;;
  run) run_foreground ;;
  stop) stop ;;
  status) if healthy; then log "healthy on 127.0.0.1:$port"; else log "not answering on 127.0.0.1:$port"; exit 1; fi ;;
  host-key) cat "$host_key.pub" ;;
  add-account) [[ $# == 3 ]] || { echo "usage: $0 add-account USER KEYFILE" >&2; exit 2; }; add_account "$2" "$3" ;;
  remove-account) [[ $# == 2 ]] || { echo "usage: $0 remove-account USER" >&2; exit 2; }; remove_account "$2" ;;
  *) echo "usage: $0 start|run|stop|status|host-key|add-account USER KEYFILE|remove-account USER" >&2; exit 2 ;;
esac
