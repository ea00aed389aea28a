#!/bin/bash
# lab/targets/smb-target.sh — a RAM-backed SMB3 share served by the Linux kernel's ksmbd in one command,
# over TCP and, with --rdma, over SMB Direct (RDMA). For one machine (server and client on the same
# host) and for the lab VM (lab/vm).
#
#   smb-target.sh up [--ip ADDR] [--size MiB] [--rdma] [--multichannel] [--modules DIR]
#   smb-target.sh down
#   smb-target.sh status
#
# up      makes (after removing whatever an earlier `up` left behind):
#           a tmpfs of --size MiB (default 256) at $SHARE_DIR (mode 0777);
#           ksmbd configuration in $CONF_DIR (ksmbd.conf, ksmbdpwd.db; nothing in /etc/ksmbd but the
#           ksmbd.subauth file that ksmbd.mountd always keeps there): share `bench` on the tmpfs,
#           writable, user `nfsbench` with password `nfsbench`; with --multichannel also the global
#           `server multi channel support = yes` (off by default: ksmbd calls it experimental);
#           ksmbd loaded and ksmbd.mountd running (its log: $CONF_DIR/mountd.log), TCP port 445 on
#           every address. ksmbd is the ksmbd.ko of lab/vm/smbdirect-modules.sh (built with SMB Direct
#           and a fix, see below) whenever the module directory is found, else the stock module.
#           With --rdma (module directory required) ksmbd also listens for SMB Direct (RDMA CM port 445
#           on RoCE/IB devices, 5445 on iWARP; checked), and the cifs.ko built with SMB Direct is
#           loaded as the client (unless a cifs with SMB Direct is loaded already) so that
#           `mount -t cifs -o rdma` works here.
#         It prints, one line each on stdout, what `mount -t cifs SOURCE DIR -o OPTIONS` takes:
#           //ADDR/bench vers=3.1.1,username=nfsbench,password=nfsbench
#           //ADDR/bench rdma,vers=3.1.1,username=nfsbench,password=nfsbench     (with --rdma)
# down    unmounts this machine's cifs mounts of //<any local address>/bench, stops ksmbd.mountd and ksmbd
#         (ksmbd.control -s), unloads ksmbd (and the built cifs.ko that `up --rdma` loaded, when no
#         cifs mount is left), removes the tmpfs and $CONF_DIR; also after a partial or failed `up`;
#         nothing to remove is no error.
# status  prints the same lines while the server runs, then (on stderr) details: ksmbd's state, which
#         module, listeners, TCP connections, the tmpfs.
#
# ADDR (default 127.0.0.1) is an IPv4 address of this machine; ksmbd listens on all of them (ADDR is
# checked and used in the lines printed). --rdma needs an RDMA device on ADDR's network device before
# `up` (Soft-RoCE: lab/vm/guest/rxe.sh; rxe does not work on lo) and the module directory of
# lab/vm/smbdirect-modules.sh (run on the host; in the VM the host's file system is there): --modules
# DIR or SMBDIRECT_MODULES=DIR, else $NFSBENCH_VM_CACHE/smbdirect/$(uname -r). Run as root.
#
# Facts this script encodes (found on Debian 12's 6.1.0-56 kernel, upload 6.1.192-2, in lab/vm):
#  - ksmbd-tools must be >= 3.5.2. Since 6.1.85 (CVE-2024-26811) ksmbd validates the size of
#    ksmbd.mountd's share-config replies with a payload_sz field that 3.4.7 (Debian 12's package) does
#    not send: the kernel drops every reply and each tree connect, IPC$ included, fails with
#    STATUS_BAD_NETWORK_NAME (mount error(2)) — it looks like an empty share list, but the share list
#    is fine. The tools come from DIR/ksmbd-tools (smbdirect-modules.sh unpacks bookworm-backports'
#    3.5.2 there) when present, else from the system (KSMBD_TOOLS=BINDIR overrides).
#  - Debian 6.1.192-2's own ksmbd.ko oopses (NULL dereference in opinfo_put() from smb2_open()) on the
#    first open that gets no oplock, i.e. on every mount: the worker dies and the client gives up after
#    180 s. smbdirect-modules.sh builds ksmbd.ko with upstream's NULL check; use that one.
#  - ksmbd-tools 3.5 takes -C CONF / -P PWDDB (3.4 took -c / -u|-i): the configuration lives in
#    $CONF_DIR; ksmbd.mountd -n (no detach) logs to stdout, detached it logs to syslog only.
#  - A user unknown to /etc/passwd is served with uid/gid 65535: the tmpfs is mode 0777.
#  - ksmbd has no I/O or byte counters (/sys/class/ksmbd-control/stats: "2 running 445 <ipc secs>");
#    count on the client (/proc/fs/cifs/Stats) or the wire.
#  - ksmbd starts its SMB Direct listener only when an RDMA-capable device exists at startup; with
#    RoCE/IB it listens on 445, with iWARP on 5445. The cifs client tries 5445 first ("rdma_connect
#    failed port=5445" in dmesg is normal) and then 445.
#  - Client side (6.1's cifs): no `nconnect` ("cifs: Unknown parameter 'nconnect'", mount error(22)).
#    `multichannel,max_channels=N` needs --multichannel here (else "no multichannel support" and one
#    channel). 6.1 only adds channels to server interfaces whose RDMA capability equals the session's
#    and that are not in use already unless RSS-capable: ksmbd flags every interface of a netdev with
#    an RDMA device as RDMA-capable, so over Soft-RoCE a TCP mount gets no extra channel ("too many
#    channel open attempts") while an rdma mount gets its second channel on ADDR.
#  - ksmbd.control -s kills mountd and writes "hard" to /sys/class/ksmbd-control/kill_server; the
#    module can be removed a moment later.
set -euo pipefail

SHARE=bench
USER_NAME=nfsbench
USER_PASS=nfsbench
SHARE_DIR=/srv/smb
CONF_DIR=/run/nfsbench-smb
TMPFS_NAME=nfsbench-smb        # the tmpfs's source name, how `down` recognises it
KSMBD_TOOLS_MIN=3.5.2

# die, say, usage and the command line (target_main, with the options below): target-lib.sh beside this
# script.
TARGET=smb-target USAGE_FROM=3
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/target-lib.sh"

MULTICHANNEL=0 MODDIR=${SMBDIRECT_MODULES:-}
target_option() {
  case $1 in
    --multichannel) MULTICHANNEL=1; SHIFT=1 ;;
    --modules) MODDIR=${2:?--modules needs a directory}; SHIFT=2 ;;
    *) return 1 ;;
  esac
}

# tools_dir MODDIR: the directory with ksmbd.mountd & co. to use.
tools_dir() {
  if [ -n "${KSMBD_TOOLS:-}" ]; then echo "$KSMBD_TOOLS"
  elif [ -n "$1" ] && [ -x "$1/ksmbd-tools/usr/sbin/ksmbd.mountd" ]; then echo "$1/ksmbd-tools/usr/sbin"
  else echo /usr/sbin
  fi
}
tools_version() { "$1/ksmbd.mountd" -V 2>&1 | sed -n 's/.*version : *\([0-9.]*\).*/\1/p' | head -n1; }

default_moddir() { echo "${NFSBENCH_VM_CACHE:-/var/tmp/nfsbench-vm}/smbdirect/$(uname -r)"; }

state_get() { [ -f $CONF_DIR/state ] && sed -n "s/^$1=//p" $CONF_DIR/state | head -n1; return 0; }

mountd_pid() {  # the manager's pid from the lock file, when that process is alive
  local p
  p=$(head -n1 /run/ksmbd.lock 2>/dev/null || true)
  [[ $p =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null && echo "$p"
  return 0
}

ksmbd_state() { awk '{print $2}' /sys/class/ksmbd-control/stats 2>/dev/null || true; }

# cifs_has_smbdirect: the loaded cifs module was built with SMB Direct
cifs_has_smbdirect() { grep -q '^Features:.*SMB_DIRECT' /proc/fs/cifs/DebugData 2>/dev/null; }

# load_module KO: its dependencies with modprobe, then insmod.
load_module() {
  local d
  for d in $(modinfo -F depends "$1" | tr ',' ' '); do modprobe "$d" || die "modprobe $d failed"; done
  insmod "$1" || die "insmod $1 failed (see dmesg)"
}

unload() {  # unload MODULE [TRIES]: rmmod, retrying (0.2 s apart) while its threads wind down
  local i
  [ -d "/sys/module/$1" ] || return 0
  for i in $(seq "${2:-50}"); do
    rmmod "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  say "cannot unload $1 (in use: $(cat /sys/module/"$1"/refcnt 2>/dev/null))"
  return 1
}

our_mounts() {  # mount points of the cifs mounts of //<an IPv4 address of this machine>/bench
  local addrs
  addrs=$(ip -4 -o addr show | awk '{sub(/\/.*/, "", $4); printf "%s ", $4}')
  awk -v s="$SHARE" -v addrs=" $addrs" '$3 == "cifs" {
    n = split($1, a, "/"); if (n == 4 && tolower(a[4]) == s && index(addrs, " " a[3] " ")) print $2 }' /proc/mounts
}

down() {
  local m p i tools
  for m in $(our_mounts); do
    umount "$m" 2>/dev/null || umount -f "$m" 2>/dev/null || umount -l "$m" || true
  done
  tools=$(tools_dir "$(state_get moddir)")
  p=$(mountd_pid)
  if [ -n "$p" ] || [ -d /sys/module/ksmbd ]; then
    if [ -x "$tools/ksmbd.control" ]; then
      "$tools/ksmbd.control" -s >/dev/null 2>&1 || true
    fi
    [ -n "$p" ] && kill "$p" 2>/dev/null || true
    [ -w /sys/class/ksmbd-control/kill_server ] && { echo hard > /sys/class/ksmbd-control/kill_server 2>/dev/null || true; }
    for i in $(seq 50); do [ -z "$(mountd_pid)" ] && break; sleep 0.1; done
    [ -z "$(mountd_pid)" ] || { p=$(mountd_pid); kill -9 -- "-$p" "$p" 2>/dev/null || true; }
  fi
  unload ksmbd || return 1
  if [ "$(state_get client_loaded)" = 1 ] && [ -z "$(awk '$3 == "cifs"' /proc/mounts)" ]; then
    unload cifs 10 || true
  fi
  if awk -v d=$SHARE_DIR -v n=$TMPFS_NAME '$2 == d && $1 == n {f=1} END {exit !f}' /proc/mounts; then
    umount $SHARE_DIR
  fi
  [ -d $SHARE_DIR ] && rmdir $SHARE_DIR 2>/dev/null || true
  rm -rf $CONF_DIR
  return 0
}

lines() {  # the mount lines for a running server
  local ip
  ip=$(state_get ip)
  [ -n "$ip" ] && [ "$(ksmbd_state)" = running ] && [ -n "$(mountd_pid)" ] || return 0
  echo "//$ip/$SHARE vers=3.1.1,username=$USER_NAME,password=$USER_PASS"
  [ "$(state_get rdma)" = 1 ] && echo "//$ip/$SHARE rdma,vers=3.1.1,username=$USER_NAME,password=$USER_PASS"
  return 0
}

status() {
  lines
  {
    if [ ! -d /sys/module/ksmbd ]; then echo "ksmbd: not loaded"; return 0; fi
    echo "ksmbd: $(cat /sys/class/ksmbd-control/stats 2>/dev/null) (stats: version state port ipc-last-active)"
    echo "ksmbd module: version $(cat /sys/module/ksmbd/version 2>/dev/null), taint '$(cat /sys/module/ksmbd/taint)' ($( [[ $(cat /sys/module/ksmbd/taint) == *O* ]] && echo "out of tree: SMB Direct build" || echo stock))"
    echo "ksmbd.mountd: pid $(mountd_pid), config $CONF_DIR, log $CONF_DIR/mountd.log"
    echo "TCP: $(ss -Hltn 'sport = :445' | awk '{print $4}' | tr '\n' ' ')"
    echo "TCP clients: $(ss -Htn state established '( sport = :445 )' | awk '{print $4}' | tr '\n' ' ')"
    command -v rdma >/dev/null && echo "RDMA CM: $(rdma resource show cm_id 2>/dev/null | grep -cE 'src-addr [^ ]*:5?445( |$)') cm_id(s) on port 445 (5445 on iWARP)"
    df -h $SHARE_DIR 2>/dev/null | tail -n1
  } >&2
}

# up: the checks of its options, then (after `down`) ksmbd and its share; prints the mount lines.
up() {
  ip -4 -o addr show | awk '{sub(/\/.*/, "", $4); print $4}' | grep -qx "$IP" || die "--ip $IP is not an address of this machine"
  [ -n "$MODDIR" ] || { d=$(default_moddir); [ -d "$d" ] && MODDIR=$d; }
  if [ $RDMA = 1 ]; then
    rdma_not_on_lo
    dev=$(ip -4 -o addr show | awk -v a="$IP" '{split($4, p, "/")} p[1] == a {print $2; exit}')
    rdma link show 2>/dev/null | grep -q "netdev $dev\( \|$\)" ||
      die "--rdma: no RDMA device on $dev ($IP) (Soft-RoCE: rdma link add rxe0 type rxe netdev $dev)"
    [ -n "$MODDIR" ] && [ -f "$MODDIR/ksmbd.ko" ] ||
      die "--rdma: no module directory with ksmbd.ko (run lab/vm/smbdirect-modules.sh on the host; --modules DIR or SMBDIRECT_MODULES=DIR)"
  fi
  T=$(tools_dir "$MODDIR")
  [ -x "$T/ksmbd.mountd" ] || die "no ksmbd.mountd in $T"
  tv=$(tools_version "$T")
  dpkg --compare-versions "${tv:-0}" ge $KSMBD_TOOLS_MIN ||
    die "ksmbd-tools ${tv:-?} in $T is older than $KSMBD_TOOLS_MIN: this kernel's ksmbd refuses its share replies (every tree connect fails with STATUS_BAD_NETWORK_NAME); run lab/vm/smbdirect-modules.sh and pass its directory"

  down || die "cannot take down what runs (see above)"
  undo_failed_up
  mkdir -p $CONF_DIR /etc/ksmbd
  printf 'ip=%s\nsize=%s\nrdma=%s\nmoddir=%s\nclient_loaded=0\n' "$IP" "$SIZE" "$RDMA" "$MODDIR" > $CONF_DIR/state

  # modules: the built ksmbd.ko whenever there is one (it carries a fix the stock one lacks)
  if [ -n "$MODDIR" ] && [ -f "$MODDIR/ksmbd.ko" ]; then
    load_module "$MODDIR/ksmbd.ko"
  else
    say "no built ksmbd.ko: using the stock one (TCP only; Debian 6.1.192-2's oopses on the first open, see the header)"
    modprobe ksmbd || die "modprobe ksmbd failed"
  fi
  if [ $RDMA = 1 ]; then
    if [ -d /sys/module/cifs ] && ! cifs_has_smbdirect; then
      [ -z "$(awk '$3 == "cifs"' /proc/mounts)" ] || die "--rdma: a cifs without SMB Direct is loaded and in use: unmount its mounts first"
      unload cifs || die "--rdma: cannot unload the stock cifs"
    fi
    if [ ! -d /sys/module/cifs ]; then
      load_module "$MODDIR/cifs.ko"
      sed -i 's/^client_loaded=0$/client_loaded=1/' $CONF_DIR/state
    fi
  fi

  # the share's file system
  mkdir -p $SHARE_DIR
  mount -t tmpfs -o "size=${SIZE}m,mode=0777" $TMPFS_NAME $SHARE_DIR

  # configuration: explicit files, no /etc/ksmbd/ksmbd.conf
  C=$CONF_DIR/ksmbd.conf P=$CONF_DIR/ksmbdpwd.db
  printf '[global]\n\tserver string = nfsbench smb-target\n' > "$C"
  [ $MULTICHANNEL = 1 ] && printf '\tserver multi channel support = yes\n' >> "$C"
  "$T/ksmbd.addshare" -C "$C" -P "$P" -a -o "path = $SHARE_DIR" -o "read only = no" -o "browseable = yes" $SHARE >/dev/null 2>&1 ||
    die "ksmbd.addshare failed: $("$T/ksmbd.addshare" -C "$C" -P "$P" -a -o "path = $SHARE_DIR" $SHARE 2>&1 | tail -n1)"
  "$T/ksmbd.adduser" -C "$C" -P "$P" -a -p $USER_PASS $USER_NAME >/dev/null 2>&1 ||
    die "ksmbd.adduser failed"

  # ksmbd.mountd, not detached (so it logs to a file), in its own session
  setsid "$T/ksmbd.mountd" -n -v -C "$C" -P "$P" > $CONF_DIR/mountd.log 2>&1 < /dev/null &
  for i in $(seq 300); do   # seconds under TCG with a busy host
    [ "$(ksmbd_state)" = running ] && [ -n "$(mountd_pid)" ] && break
    sleep 0.1
  done
  [ "$(ksmbd_state)" = running ] || die "ksmbd did not start (state '$(ksmbd_state)'); $CONF_DIR/mountd.log: $(tail -n3 $CONF_DIR/mountd.log)"
  for i in $(seq 50); do ss -Hltn 'sport = :445' | grep -q . && break; sleep 0.1; done
  ss -Hltn 'sport = :445' | grep -q . || die "ksmbd is not listening on TCP 445"
  if [ $RDMA = 1 ]; then
    local port=445
    iwarp_on "$IP" && port=5445
    for i in $(seq 50); do rdma resource show cm_id 2>/dev/null | grep -qE "src-addr [^ ]*:$port( |\$)" && break; sleep 0.1; done
    rdma resource show cm_id 2>/dev/null | grep -qE "src-addr [^ ]*:$port( |\$)" ||
      die "ksmbd has no SMB Direct listener (RDMA CM port $port; see dmesg)"
  fi
  trap - EXIT
  lines
}

target_main "$@"
