#!/bin/bash
# tests/interop/guest/kernel-client.sh OUT MODE [PROTO] — runs INSIDE the lab VM (lab/vm/run.sh), as root.
#
# Starts `nfsbench serve` ($NFSBENCH, a host binary seen through the VM's read-only root) with a 1 GiB
# RAM export, mounts it with the Linux kernel NFSv3 client, and checks a file-system workload against
# the same workload on a local tmpfs (guest/workload.sh). OUT is a directory shared read-write with the
# host (`run.sh -w OUT`); everything this leaves for the host is there:
#   log lines on stdout                 the scenario log (the host keeps it)
#   OUT/reason                          the one-line failure reason
#   OUT/summary                         one-line results (timings)
#   OUT/kernel-client-tcp.pcap, .port   tcpdump -s 0 of the first phase (mount .. umount), the server port
#   OUT/capture.done                    written once the capture is complete and clean
#   OUT/transcript.{local,nfs}.*        what each command printed, local reference vs NFS
#   OUT/manifest.*                      tree manifests
#   OUT/server.log                      the server's stderr and its statistics at exit
#   OUT/dmesg.txt                       the guest kernel log (always, from the EXIT trap)
# MODE: full     phase 1 (captured) + umount/remount + phase 2 (100 MiB) + umount/remount + cleanup
#       capture  phase 1 under tcpdump only (what the tshark scenario needs when run on its own)
# PROTO: tcp (default) or rdma (Soft-RoCE; only once `nfsbench serve --rdma` exists).
set -euo pipefail
OUT=$1 MODE=$2 PROTO=${3:-tcp}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SCEN_DIR=$OUT
. "$here/../lib/common.sh"
. "$here/workload.sh"
LIB=$here/../lib
case $MODE in full|capture) ;; *) fail "kernel-client.sh: MODE must be full or capture, not '$MODE'" ;; esac
case $PROTO in tcp|rdma) ;; *) fail "kernel-client.sh: PROTO must be tcp or rdma, not '$PROTO'" ;; esac

MNT=/mnt/nfs
LOCAL=/srv/local
SRC=/srv/src
TCPDUMP=
cleanup() {
  local rc=$?
  set +e
  if [ -n "$TCPDUMP" ]; then kill -INT "$TCPDUMP" 2>/dev/null; wait "$TCPDUMP" 2>/dev/null; fi
  if mountpoint -q "$MNT"; then
    cd /
    timeout -k 2 20 umount "$MNT" 2>/dev/null || umount -f -l "$MNT" 2>/dev/null
  fi
  stop_server || { [ $rc = 0 ] && { _reason reason "the server did not shut down cleanly"; rc=1; }; }
  dmesg > "$OUT/dmesg.txt" 2>/dev/null
  exit $rc
}
trap cleanup EXIT

# --- setup ---------------------------------------------------------------------------------------
step "guest: kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"
for m in sunrpc nfs nfsv3; do modprobe "$m" || fail "modprobe $m"; done
SERVER_HOST=127.0.0.1
SERVE_ARGS=(--listen 127.0.0.1:0 --export /export=mem:1GiB)
if [ "$PROTO" = rdma ]; then
  . "$INTEROP_ROOT/lab/vm/guest/rxe.sh" || fail "Soft-RoCE setup (lab/vm/guest/rxe.sh) failed"
  modprobe rpcrdma || fail "modprobe rpcrdma"
  SERVER_HOST=$RXE_IP
  SERVE_ARGS=(--listen "$RXE_IP:0" --export /export=mem:1GiB --rdma --rdma-listen "$RXE_IP:20049")
fi
# Everything the kernel logs from here on is the test's business (see check_kernel_log).
echo "nfsbench-interop: test starts" > /dev/kmsg

mkdir -p "$MNT" "$LOCAL" "$SRC"
mount -t tmpfs -o size=400M tmpfs "$LOCAL"
mount -t tmpfs -o size=200M tmpfs "$SRC"
t0=$(now_ns)
make_sources "$SRC" "$([ "$MODE" = full ] && echo 1 || echo 0)"
log "source data made in $(elapsed_since "$t0") s"
mkdir -p "$LOCAL/w"

start_server "$OUT" "${SERVE_ARGS[@]}"
P=$SERVER_PORT
echo "$P" > "$OUT/kernel-client-tcp.port"
if [ "$PROTO" = tcp ]; then
  OPTS=vers=3,proto=tcp,port=$P,mountport=$P,mountproto=tcp,nolock
else
  OPTS=vers=3,proto=rdma,port=20049,mountport=$P,mountproto=tcp,nolock
fi

# --- helpers ---------------------------------------------------------------------------------------
mount_nfs() {
  must 60 "mount -o $OPTS" mount -t nfs -o "$OPTS" "$SERVER_HOST:/export" "$MNT"
  log "mounted: $(grep " $MNT nfs " /proc/mounts)"
  CONNECTS=$(python3 "$LIB/mountstats.py" --connects "$MNT") || fail "no transport statistics for $MNT"
  RXE_FAULTS_AT_MOUNT=$(rxe_client_faults)
}
umount_nfs() {
  cd /
  log "kernel client's counters for this mount (/proc/self/mountstats):"
  python3 "$LIB/mountstats.py" "$MNT" ${CONNECTS:+"$CONNECTS"} --provider-faults "$(rxe_faults_since_mount)" || fail "the kernel client saw transport trouble on $MNT (see above)"
  must 60 "umount $MNT" umount "$MNT"
  check_server_alive "after umount"
}
# transcript_compare N: the local and NFS transcripts of phase N must be identical.
transcript_compare() {
  local a=$OUT/transcript.local.$1 b=$OUT/transcript.nfs.$1
  if ! cmp -s "$a" "$b"; then
    diff -a -u "$a" "$b" | head -n 120 || true
    fail "phase $1: the NFS run differs from the local reference (diff above: - local tmpfs, + NFS)"
  fi
  log "phase $1: transcripts identical ($(grep -c '^\$ ' "$a") commands)"
}
# manifest_compare ID LABEL: the NFS tree must hold exactly what the local tree holds.
manifest_compare() {
  local id=$1; shift
  local timed=() p
  for p in "${TIMED[@]}"; do timed+=(--timed "$p"); done
  local ref=$OUT/manifest.local.${id%%-*}      # the reference of phase N (1, 1-remount: 1)
  [ -s "$ref" ] || tmo 300 python3 "$LIB/manifest.py" "$LOCAL/w" "${timed[@]}" > "$ref"
  tmo 300 python3 "$LIB/manifest.py" "$MNT/w" "${timed[@]}" > "$OUT/manifest.nfs.$id" \
    || fail "$1: cannot read the tree back over NFS (manifest.py failed)"
  python3 "$LIB/manifest.py" --compare "$ref" "$OUT/manifest.nfs.$id" \
    || fail "$1: the NFS tree differs from the local reference (diff above: - local, + NFS)"
}
# fsstat: df's view (FSSTAT): sets FS_TOTAL FS_USED FS_AVAIL (KiB). (No `read < <(...)`: the guest has
# no /dev/fd.)
fsstat() {
  local line
  line=$(tmo 30 df -k -P "$MNT" | awk 'NR == 2 {print $2, $3, $4}') || fail "df $MNT failed"
  set -- $line
  [ $# = 3 ] || fail "df $MNT printed no size line"
  FS_TOTAL=$1 FS_USED=$2 FS_AVAIL=$3
}

# --- phase 1: everything but the big file, under tcpdump (TCP only) --------------------------------
step "phase 1 on the local tmpfs (reference)"
cd "$LOCAL/w"; T=$OUT/transcript.local.1; : > "$T"; phase_small; cd /
step "phase 1 over NFS ($OPTS)"
PCAP=$OUT/kernel-client-tcp.pcap
if [ "$PROTO" = tcp ]; then start_tcpdump "$PCAP" "tcp port $P"; fi
mount_nfs
must 30 "mkdir $MNT/w" mkdir "$MNT/w"
t0=$(now_ns)
cd "$MNT/w"; T=$OUT/transcript.nfs.1; : > "$T"; phase_small; cd /
p1_secs=$(elapsed_since "$t0")
check_server_alive "during phase 1"
transcript_compare 1
drop_caches
manifest_compare 1 "phase 1 (same mount)"
fsstat
log "df after phase 1: total=$FS_TOTAL KiB used=$FS_USED KiB avail=$FS_AVAIL KiB"
[ "$FS_TOTAL" = 1048576 ] || fail "df (FSSTAT): total size $FS_TOTAL KiB, the export is mem:1GiB = 1048576 KiB"
umount_nfs
if [ "$PROTO" = tcp ]; then
  stop_tcpdump "$PCAP"
  touch "$OUT/capture.done"
  log "capture: $(stat -c %s "$PCAP") bytes in $PCAP (server port $P)"
fi
summary "phase 1 over NFS: ${p1_secs} s"
if [ "$MODE" = capture ]; then
  check_kernel_log
  step "capture done"
  exit 0
fi

# --- umount / remount: what was written and acknowledged is still there -------------------------------
step "remount, verify phase 1"
mount_nfs
manifest_compare 1-remount "phase 1 after umount/remount"

# --- phase 2: the 100 MiB file ------------------------------------------------------------------------
step "phase 2 (100 MiB) on the local tmpfs (reference)"
cd "$LOCAL/w"; T=$OUT/transcript.local.2; : > "$T"; phase_bulk > /dev/null; cd /
step "phase 2 over NFS"
fsstat; used_before=$FS_USED
cd "$MNT/w"; T=$OUT/transcript.nfs.2; : > "$T"; bulk=$(phase_bulk); cd /
log "100 MiB over NFS: $(echo $bulk)"
check_server_alive "during phase 2"
transcript_compare 2
fsstat; used_after=$FS_USED
log "df: used ${used_before} KiB before the 100 MiB file, ${used_after} KiB after"
[ $((used_after - used_before)) -ge 102400 ] \
  || fail "df (FSSTAT): used grew by $((used_after - used_before)) KiB for a 100 MiB file"
umount_nfs

step "remount, verify everything"
mount_nfs
t0=$(now_ns)
manifest_compare 2-remount "phases 1+2 after umount/remount"
log "verified the whole tree (incl. 100 MiB) in $(elapsed_since "$t0") s"
summary "100 MiB: $(echo $bulk | sed 's/ ([^)]*)//g')"

# --- cleanup over NFS: remove everything, the space comes back ---------------------------------------
step "rm -rf over NFS"
must 300 "rm -rf $MNT/w" rm -rf "$MNT/w"
left=$(ls -A "$MNT" | wc -l)
[ "$left" = 0 ] || { ls -la "$MNT"; fail "the export still lists $left entries after rm -rf"; }
fsstat; used_empty=$FS_USED
log "df: used ${used_empty} KiB once empty"
[ "$used_empty" -lt 10240 ] || fail "df (FSSTAT): ${used_empty} KiB still used after removing everything"
umount_nfs

check_kernel_log
check_server_alive "at the end"
server_log_check
stop_server || fail "the server did not shut down cleanly after the test"
log "server statistics at exit:"
sed -n '/^program /,$p' "$SERVER_LOG"
step "kernel client workload passed"
