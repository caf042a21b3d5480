#!/usr/bin/env bash
# Postfix as the MTA for tests and local runs: Debian's postfix, installed with apt when missing,
# run as its own instance (own config directory, queue and log under $ROBINSON_LOCAL/postfix,
# default ${TMPDIR:-/tmp}/robinson-local/postfix). The machine's /etc/postfix is neither read nor
# changed, and the system instance (if any) keeps port 25.
#
# Port (loopback only): SMTP 127.0.0.1:12025 (POSTFIX_SMTP_PORT). Clients on 127.0.0.0/8 may send;
# mail for the test domains (robinson.test, customer.test) goes by LMTP into the Dovecot of
# infra/local/dovecot.sh (127.0.0.1:11024); everything else bounces: nothing leaves the machine.
#
#   postfix.sh start | stop | status
#   postfix.sh spool-dir     print the queue directory (the canary test searches it)
set -euo pipefail

base="${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/postfix"
smtp_port="${POSTFIX_SMTP_PORT:-12025}"
lmtp_port="${DOVECOT_LMTP_PORT:-11024}"
conf_dir="$base/etc"
queue_dir="$base/spool"
data_dir="$base/data"
log_file="$base/maillog"

log() { echo "[postfix] $*" >&2; }

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root (or sudo) to run postfix"; return 1
  fi
}

banner() {
  # The server's own signal: SMTP greets every connection with "220 ".
  local line=""
  { exec 3<>"/dev/tcp/127.0.0.1/$smtp_port"; } 2>/dev/null || return 1
  IFS= read -r -t 2 line <&3 || true
  printf 'QUIT\r\n' >&3 2>/dev/null || true
  exec 3<&- 3>&-
  [[ "$line" == 220* ]]
}

install_if_missing() {
  [[ -x /usr/sbin/postfix && -x /usr/lib/postfix/sbin/master ]] && return 0
  log "installing postfix with apt"
  local added_policy=""
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'
    added_policy=1
  fi
  local status=0
  {
    as_root sh -c 'echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections' &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
        --no-install-recommends postfix
  } >"$base/apt.log" 2>&1 || status=$?
  [[ -n "$added_policy" ]] && as_root rm -f /usr/sbin/policy-rc.d
  if [[ $status != 0 ]]; then log "apt-get failed ($status):"; tail -n 30 "$base/apt.log" >&2; return 1; fi
}

write_config() {
  mkdir -p "$conf_dir" "$data_dir"
  as_root mkdir -p "$queue_dir"
  as_root chown root:root "$queue_dir"
  as_root chown postfix:postfix "$data_dir"
  cat >"$conf_dir/main.cf" <<EOF
# Written by infra/local/postfix.sh: loopback-only MTA for tests.
compatibility_level = 3.6
queue_directory = $queue_dir
data_directory = $data_dir
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
meta_directory = /etc/postfix
shlib_directory = /usr/lib/postfix
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = mail.robinson.test
mydomain = robinson.test
myorigin = robinson.test
mydestination =
mynetworks = 127.0.0.0/8
relay_domains =
relayhost =
local_transport = error:no local delivery
default_transport = error:nothing leaves this machine
virtual_mailbox_domains = robinson.test customer.test
virtual_transport = lmtp:inet:127.0.0.1:$lmtp_port
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
smtpd_recipient_restrictions = permit_mynetworks, reject
alias_maps =
alias_database =
biff = no
message_size_limit = 104857600
maillog_file = $log_file
maillog_file_prefixes = $base/
smtpd_tls_security_level = none
smtp_tls_security_level = none
EOF
  # master.cf: the distribution's, without chroot (a chroot needs copies of /etc files inside the
  # queue directory) and with the SMTP listener on our loopback port instead of port 25.
  sed -E \
    -e 's/^smtp( +)inet( +)n( +)-( +)y/127.0.0.1:'"$smtp_port"' inet n - n/' \
    -e '/^[a-z0-9:.]+ +(unix|unix-dgram|fifo|inet|pass) /s/^([^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +)y/\1n/' \
    /usr/share/postfix/master.cf.dist >"$conf_dir/master.cf"
}

start() {
  mkdir -p "$base"
  if banner; then return 0; fi
  install_if_missing
  write_config
  if ! as_root postfix -c "$conf_dir" status >/dev/null 2>&1; then
    as_root postfix -c "$conf_dir" set-permissions >/dev/null 2>&1 || true
    # Postfix prints a fatal configuration error only to a terminal (else to syslog, which may not
    # exist here); script(1) gives it one so the error reaches start.log.
    as_root script -qec "postfix -c $conf_dir start" /dev/null >"$base/start.log" 2>&1 || { log "postfix did not start"; cat "$base/start.log" >&2; tail -n 20 "$log_file" >&2 || true; return 1; }
  fi
  local waited=0
  until banner; do
    if (( waited >= 300 )); then log "no SMTP banner on 127.0.0.1:$smtp_port after 30 s"; tail -n 20 "$log_file" >&2 || true; return 1; fi
    sleep 0.1; waited=$((waited + 1))
  done
  log "ready: SMTP 127.0.0.1:$smtp_port → LMTP 127.0.0.1:$lmtp_port (queue $queue_dir, log $log_file)"
}

stop() {
  as_root postfix -c "$conf_dir" stop 2>/dev/null || log "not running"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) if banner; then log "healthy on 127.0.0.1:$smtp_port"; else log "not answering on 127.0.0.1:$smtp_port"; exit 1; fi ;;
  spool-dir) echo "$queue_dir" ;;
  *) echo "usage: $0 start|stop|status|spool-dir" >&2; exit 2 ;;
esac
