#!/bin/bash
# lab/peers/ganesha.sh — runs NFS-Ganesha (Debian's 4.3, FSAL_VFS) as a real NFSv3/v4 server peer on loopback.
#
#   ganesha.sh start [DIR]   export DIR (should be on tmpfs) as /export; without DIR, mount a fresh tmpfs
#                            at $STATE/export (size $GANESHA_TMPFS_SIZE) and export that. Returns once
#                            NFS and MOUNT answer a NULL call. Installs nfs-ganesha(-vfs) and rpcbind if missing.
#   ganesha.sh stop          SIGTERM Ganesha (SIGKILL after 20 s), stop the rpcbind we started, unmount our tmpfs
#   ganesha.sh status        print pid, ports, export dir and URLs; exit 0 if running, 3 if not
#   ganesha.sh url [v3|v4]   print the libnfs URL of the export (default v3), e.g. for fio's nfs_url
#   ganesha.sh exec CMD...   run CMD where it can reach the server (see "Namespace" below: here, plainly)
#
# Environment (read by start; stop/status/url use what start recorded in $STATE/ganesha.env):
#   GANESHA_STATE       state dir: config, log, pidfile, recovery dir, tmpfs (default /var/tmp/nfsbench-peers/ganesha)
#   GANESHA_NFS_PORT    NFS port (default 2049)        GANESHA_MNT_PORT  MOUNT port (default 20048)
#   GANESHA_TMPFS_SIZE  size of the tmpfs made when no DIR is given (default 4g)
#
# Namespace: this runs in the host's network namespace, bound to 127.0.0.1 only. Checked on this machine
# (Debian 12): rpcbind and Ganesha work there, and because eth0 carries global addresses glibc's
# getaddrinfo(AI_ADDRCONFIG) resolves loopback fine, so no private namespace (and none of the
# 127.0.0.2 / fd00:: / private /run tricks in shared/PEERS.md) is needed, and any client — fio, nfs-ls,
# nfsbench itself — reaches the server without entering a namespace. `exec` exists so callers stay
# correct if this ever moves into a private namespace. Costs of the host namespace:
#   - Ganesha will not start without rpcbind (LogFatal "Cannot register NFS V3 on TCP"), and rpcbind
#     listens on *:111 (`rpcbind -h 127.0.0.1` aborts). An rpcbind already running is reused and left
#     alone; one started here is stopped by `stop`.
#   - One instance per machine: a second Ganesha would re-register (steal) the NFS/MOUNT programs in
#     rpcbind. On a systemd host where the Debian package started its own nfs-ganesha.service on 2049,
#     stop that first (`systemctl stop nfs-ganesha`) or pick other ports.
# Bind_addr is the v4-mapped ::ffff:127.0.0.1: with IPv6 present, plain 127.0.0.1 silently binds [::].
set -euo pipefail

STATE=${GANESHA_STATE:-/var/tmp/nfsbench-peers/ganesha}
envfile=$STATE/ganesha.env
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

say() { echo "ganesha: $*" >&2; }
die() { say "error: $*"; exit 1; }

# Settings recorded at start win over the environment, so stop/status/url see the running instance.
load_env() {
  NFS_PORT=${GANESHA_NFS_PORT:-2049}
  MNT_PORT=${GANESHA_MNT_PORT:-20048}
  EXPORT_DIR=
  OWN_TMPFS=0
  OWN_RPCBIND=
  PID=
  # shellcheck disable=SC1090
  [ -f "$envfile" ] && . "$envfile"
  return 0
}

url() { # url v3|v4
  case ${1:-v3} in
    v3|3) echo "nfs://127.0.0.1/export?version=3&nfsport=$NFS_PORT&mountport=$MNT_PORT" ;;
    v4|4) echo "nfs://127.0.0.1/export?version=4&nfsport=$NFS_PORT" ;;
    *) die "url: v3 or v4" ;;
  esac
}

is_alive() { # is_alive PID: some thread of PID is not a zombie
  # A dead daemon (re-parented to PID 1, which reaps only every ~2 s here) lingers as a zombie, and
  # Ganesha's main thread turns zombie at SIGTERM while its other threads are still shutting down.
  local t
  for t in /proc/"$1"/task/*/stat; do
    [ -e "$t" ] || continue
    [ "$(sed 's/.*) //' "$t" 2>/dev/null | cut -d' ' -f1)" = Z ] || return 0
  done
  return 1
}

is_pid_of() { # is_pid_of PID COMM: PID is alive and runs that program (guards against pid reuse)
  [ -n "$1" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && is_alive "$1"
}

running() { is_pid_of "$PID" ganesha.nfsd; }

port_busy() { ss -Htln "sport = :$1" 2>/dev/null | grep -q .; }

rpc_null() { # rpc_null PORT PROG VERS: an RPC NULL call over TCP straight to PORT (no portmapper lookup)
  timeout 5 rpcinfo -n "$1" -t 127.0.0.1 "$2" "$3" >/dev/null 2>&1
}

install_pkgs() {
  local pkgs=(nfs-ganesha nfs-ganesha-vfs rpcbind) missing=() p
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]}"
  $SUDO apt-get update -qq >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

write_env() {
  cat > "$envfile" <<EOF
NFS_PORT=$NFS_PORT
MNT_PORT=$MNT_PORT
EXPORT_DIR=$EXPORT_DIR
OWN_TMPFS=$OWN_TMPFS
OWN_RPCBIND=$OWN_RPCBIND
PID=$PID
EOF
}

cmd_start() {
  load_env
  if running; then die "already running (pid $PID, port $NFS_PORT); stop it first"; fi
  [ "$(id -u)" = 0 ] || die "start needs root (Ganesha's FSAL_VFS uses open_by_handle_at)"
  # Leftovers of an instance that died without `stop`: drop its tmpfs; an rpcbind it started stays ours.
  if [ "$OWN_TMPFS" = 1 ] && mountpoint -q "$EXPORT_DIR"; then umount "$EXPORT_DIR" || true; fi
  NFS_PORT=${GANESHA_NFS_PORT:-2049}   # a new start follows the environment, not the recorded ports
  MNT_PORT=${GANESHA_MNT_PORT:-20048}
  install_pkgs
  for p in "$NFS_PORT" "$MNT_PORT"; do
    port_busy "$p" && die "port $p is already in use: $(ss -Htlnp "sport = :$p" | head -1)"
  done
  mkdir -p "$STATE/recovery"

  # --- the exported directory ----------------------------------------------------------------------
  OWN_TMPFS=0
  if [ $# -ge 1 ]; then
    EXPORT_DIR=$(realpath -e "$1") || die "no such directory: $1"
    [ "$(stat -f -c %T "$EXPORT_DIR")" = tmpfs ] \
      || say "warning: $EXPORT_DIR is not on tmpfs; the figures will include that filesystem"
  else
    EXPORT_DIR=$STATE/export
    mkdir -p "$EXPORT_DIR"
    if mountpoint -q "$EXPORT_DIR"; then umount "$EXPORT_DIR"; fi   # left over from a crashed run
    mount -t tmpfs -o "size=${GANESHA_TMPFS_SIZE:-4g},mode=1777" nfsbench-ganesha "$EXPORT_DIR"
    OWN_TMPFS=1
  fi
  PID=; write_env   # from here on, `stop` can undo what start did, even if start fails half-way

  # --- rpcbind: reuse a running one, else start our own ----------------------------------------------
  # (an rpcbind an earlier start of ours left behind, e.g. after Ganesha crashed, stays ours)
  is_pid_of "$OWN_RPCBIND" rpcbind || OWN_RPCBIND=
  if ! timeout 5 rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
    setsid rpcbind -f </dev/null >>"$STATE/rpcbind.out" 2>&1 &
    OWN_RPCBIND=$!
    write_env
    for _ in $(seq 50); do timeout 5 rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && break; sleep 0.1; done
    timeout 5 rpcinfo -p 127.0.0.1 >/dev/null 2>&1 \
      || { cmd_stop_quiet; die "rpcbind did not come up (see $STATE/rpcbind.out)"; }
  fi

  # --- config (shared/PEERS.md: v4-mapped bind address, Mount_Path_Pseudo for v3 MOUNT of /export) ---
  cat > "$STATE/ganesha.conf" <<EOF
# written by lab/peers/ganesha.sh — regenerated on every start
NFS_CORE_PARAM {
    Bind_addr = ::ffff:127.0.0.1;   # loopback only (plain 127.0.0.1 binds [::] when IPv6 is present)
    NFS_Port = $NFS_PORT;
    MNT_Port = $MNT_PORT;
    Protocols = 3, 4;
    Mount_Path_Pseudo = true;       # else a v3 MOUNT of /export gets MNT3ERR_ACCES
    Enable_NLM = false;
    Enable_RQUOTA = false;
    Enable_UDP = false;
}
NFSV4 {
    Graceless = true;
    RecoveryRoot = $STATE/recovery;
}
EXPORT {
    Export_Id = 1;
    Path = $EXPORT_DIR;
    Pseudo = /export;
    Protocols = 3, 4;
    Transports = TCP;
    Access_Type = RW;
    Squash = No_Root_Squash;
    SecType = sys;
    FSAL { Name = VFS; }            # not MEM: FSAL_MEM keeps only the first Inode_Size bytes of a file
}
EOF

  # --- Ganesha, detached from our session so it outlives this script -----------------------------------
  : > "$STATE/ganesha.log"
  setsid ganesha.nfsd -F -f "$STATE/ganesha.conf" -L "$STATE/ganesha.log" -p "$STATE/ganesha.pid" \
    </dev/null >>"$STATE/ganesha.out" 2>&1 &
  PID=$!
  write_env

  local t0=$SECONDS
  until rpc_null "$NFS_PORT" 100003 3 && rpc_null "$MNT_PORT" 100005 3; do
    # not `running`: until the fork has exec'd, $PID's comm is still bash or setsid
    if ! is_alive "$PID"; then
      grep -vE ':(DBUS|RADOS|NFS CB) :|krb5|principal nfs' "$STATE/ganesha.log" | tail -15 >&2 || true
      PID=; write_env; cmd_stop_quiet
      die "ganesha.nfsd exited during startup (log: $STATE/ganesha.log)"
    fi
    [ $((SECONDS - t0)) -lt 30 ] || { cmd_stop_quiet; die "no answer on ports $NFS_PORT/$MNT_PORT after 30 s"; }
    sleep 0.1
  done
  say "ganesha $(ganesha_version) pid $PID exporting $EXPORT_DIR as /export on 127.0.0.1:$NFS_PORT (mount $MNT_PORT)"
  url v3
}

ganesha_version() { ganesha.nfsd -v 2>/dev/null | sed -n 's/.*Release = V\{0,1\}\([^ ]*\).*/\1/p' | head -1; }

cmd_stop_quiet() {
  load_env
  if running; then
    kill -TERM "$PID"
    for _ in $(seq 200); do running || break; sleep 0.1; done
    if running; then say "still alive after 20 s, SIGKILL"; kill -KILL "$PID"; sleep 0.2; fi
  fi
  if is_pid_of "$OWN_RPCBIND" rpcbind; then
    kill -TERM "$OWN_RPCBIND"
    for _ in $(seq 50); do is_pid_of "$OWN_RPCBIND" rpcbind || break; sleep 0.1; done
    if is_pid_of "$OWN_RPCBIND" rpcbind; then kill -KILL "$OWN_RPCBIND"; fi
  fi
  if [ "$OWN_TMPFS" = 1 ] && mountpoint -q "$EXPORT_DIR"; then
    for _ in $(seq 50); do umount "$EXPORT_DIR" 2>/dev/null && break; sleep 0.1; done
    if mountpoint -q "$EXPORT_DIR"; then say "warning: $EXPORT_DIR busy, lazy unmount"; umount -l "$EXPORT_DIR"; fi
  fi
  rm -f "$envfile" "$STATE/ganesha.pid"
}

cmd_stop() {
  load_env
  if ! running && [ ! -f "$envfile" ]; then say "not running"; return 0; fi
  cmd_stop_quiet
  say "stopped"
}

cmd_status() {
  load_env
  if running; then
    echo "running pid=$PID nfs_port=$NFS_PORT mnt_port=$MNT_PORT export=$EXPORT_DIR"
    echo "v3: $(url v3)"
    echo "v4: $(url v4)"
    echo "log: $STATE/ganesha.log"
    return 0
  fi
  echo "not running"
  return 3
}

case ${1:-} in
  start) shift; cmd_start "$@" ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  url) load_env; url "${2:-v3}" ;;
  exec) shift; [ $# -gt 0 ] || die "exec: no command"; exec "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
