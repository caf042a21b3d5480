#!/usr/bin/env bash
# Dovecot IMAP for tests and local runs (the ingest mailbox and the customers' mailboxes that read
# the replies): Debian's dovecot-imapd + dovecot-lmtpd, installed with apt when missing, run as its
# own instance with its own config, users, mail and logs under $ROBINSON_LOCAL/dovecot (default
# ${TMPDIR:-/tmp}/robinson-local/dovecot). The machine's /etc/dovecot is not used.
#
# Ports (loopback only): IMAP 127.0.0.1:11143 (DOVECOT_IMAP_PORT), LMTP 127.0.0.1:11024
# (DOVECOT_LMTP_PORT; Postfix of infra/local/postfix.sh delivers into it). Plaintext login without
# TLS is allowed: loopback only.
#
# Users are full addresses in a passwd-file (Dovecot re-reads it when it changes), mail in Maildir
# owned by the system user `mail`.
#
#   dovecot.sh start                      install if missing, start if not running, wait for the greeting
#   dovecot.sh stop | status
#   dovecot.sh add-user ADDRESS PASSWORD  add a mailbox user (replaces the password if present)
#   dovecot.sh remove-user ADDRESS        remove the user and its mail
set -euo pipefail

base="${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/dovecot"
imap_port="${DOVECOT_IMAP_PORT:-11143}"
lmtp_port="${DOVECOT_LMTP_PORT:-11024}"
conf="$base/dovecot.conf"
users="$base/users"
mail_dir="$base/mail"
run_dir="$base/run"
log_file="$base/dovecot.log"

log() { echo "[dovecot] $*" >&2; }

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to run dovecot"; return 1
  fi
}

greeting() {
  # The server's own signal: IMAP greets every connection with "* OK".
  local line=""
  { exec 3<>"/dev/tcp/127.0.0.1/$imap_port"; } 2>/dev/null || return 1
  IFS= read -r -t 2 line <&3 || true
  exec 3<&- 3>&-
  [[ "$line" == "* OK"* ]]
}

install_if_missing() {
  [[ -x /usr/sbin/dovecot && -x /usr/lib/dovecot/imap && -x /usr/lib/dovecot/lmtp ]] && return 0
  log "installing dovecot-imapd and dovecot-lmtpd with apt"
  local added_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'
    added_policy=1
  fi
  local status=0
  {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
        --no-install-recommends dovecot-imapd dovecot-lmtpd
  } >"$base/apt.log" 2>&1 || status=$?
  [[ -n "$added_policy" ]] && as_root rm -f /usr/sbin/policy-rc.d
  if [[ $status != 0 ]]; then log "apt-get failed ($status):"; tail -n 30 "$base/apt.log" >&2; return 1; fi
}

write_config() {
  mkdir -p "$run_dir" "$base/state" "$mail_dir"
  touch "$users"
  chmod 644 "$users"
  as_root chown mail:mail "$mail_dir"
  cat >"$conf" <<EOF
# Written by infra/local/dovecot.sh: loopback-only IMAP + LMTP for tests.
protocols = imap lmtp
listen = 127.0.0.1
base_dir = $run_dir
state_dir = $base/state
log_path = $log_file
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 8
mail_location = maildir:$mail_dir/%u/Maildir
mail_uid = mail
mail_gid = mail
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $users
}
userdb {
  driver = passwd-file
  args = username_format=%u $users
  default_fields = uid=mail gid=mail home=$mail_dir/%u
}
namespace inbox {
  inbox = yes
  separator = /
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $imap_port
  }
  inet_listener imaps {
    port = 0
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = $lmtp_port
  }
}
protocol lmtp {
  postmaster_address = postmaster@robinson.test
}
protocol imap {
  mail_max_userip_connections = 100
}
EOF
}

master_pid() {
  [[ -f "$run_dir/master.pid" ]] || return 1
  local pid; pid="$(cat "$run_dir/master.pid")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

start() {
  mkdir -p "$base"
  if greeting; then return 0; fi
  install_if_missing
  write_config
  if ! master_pid >/dev/null; then
    as_root /usr/sbin/dovecot -c "$conf" || { log "dovecot did not start"; tail -n 20 "$log_file" >&2 || true; return 1; }
  fi
  local waited=0
  until greeting; do
    if (( waited >= 300 )); then log "no IMAP greeting on 127.0.0.1:$imap_port after 30 s"; tail -n 20 "$log_file" >&2 || true; return 1; fi
    sleep 0.1; waited=$((waited + 1))
  done
  log "ready: IMAP 127.0.0.1:$imap_port, LMTP 127.0.0.1:$lmtp_port (mail in $mail_dir, log $log_file)"
}

stop() {
  if ! master_pid >/dev/null; then log "not running"; return 0; fi
  as_root doveadm -c "$conf" stop || true
  log "stopped"
}

valid_address() {
  [[ "$1" =~ ^[A-Za-z0-9._+-]{1,64}@[A-Za-z0-9.-]{1,100}$ ]] || { log "bad address"; exit 2; }
}

add_user() {
  local address="$1" password="$2"
  valid_address "$address"
  [[ "$password" =~ ^[A-Za-z0-9._-]{1,100}$ ]] || { log "password: letters, digits . _ - only"; exit 2; }
  mkdir -p "$base"; touch "$users"
  (
    flock 9
    grep -v "^$address:" "$users" >"$users.new" || true
    echo "$address:{PLAIN}$password::::::" >>"$users.new"
    chmod 644 "$users.new"; mv "$users.new" "$users"
  ) 9>"$base/users.lock"
}

remove_user() {
  local address="$1"
  valid_address "$address"
  (
    flock 9
    grep -v "^$address:" "$users" >"$users.new" || true
    chmod 644 "$users.new"; mv "$users.new" "$users"
  ) 9>"$base/users.lock"
  as_root rm -rf "${mail_dir:?}/$address"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) if greeting; then log "healthy on 127.0.0.1:$imap_port"; else log "not answering on 127.0.0.1:$imap_port"; exit 1; fi ;;
  add-user) [[ $# == 3 ]] || { echo "usage: $0 add-user ADDRESS PASSWORD" >&2; exit 2; }; add_user "$2" "$3" ;;
  remove-user) [[ $# == 2 ]] || { echo "usage: $0 remove-user ADDRESS" >&2; exit 2; }; remove_user "$2" ;;
  *) echo "usage: $0 start|stop|status|add-user ADDRESS PASSWORD|remove-user ADDRESS" >&2; exit 2 ;;
esac
