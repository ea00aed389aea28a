#!/bin/bash
# tests/interop/guest/kernel-client-v4.sh OUT SERVER PROTO [capture] [VERS[:MODE]...] — runs INSIDE the lab VM,
# as root.
#
# The Linux kernel NFSv4.1/NFSv4.2 client against a server in the same guest:
#   SERVER  knfsd    the Linux kernel NFS server (lab/vm/guest/knfsd.sh: a 1 GiB tmpfs exported with
#                    fsid=0, so the NFSv4 mount path is "/"); the reference the nfsbench server must match
#           nfsbench `nfsbench serve --listen HOST:0 --export /export=dir:/srv/export --state-dir
#                    /srv/nfsbench-state` ($NFSBENCH; restarted with --listen HOST:PORT; with
#                    `--rdma --rdma-listen $RXE_IP:20049` for PROTO=rdma), mount path "/export"
#   PROTO   tcp (127.0.0.1) or rdma (Soft-RoCE rxe0 on a dummy device, $RXE_IP, port 20049)
#   VERS    4.1 and/or 4.2, one after the other in one boot (default: 4.1 4.2), each with a MODE:
#           full (the default) or quick (no phase 2: the 100 MiB file is the slow part under TCG)
#   capture (PROTO tcp) each version's mount and phase 1 captured with tcpdump -s 0 on lo into
#           OUT/kernel-v4.V.pcap (the server's port in OUT/capture.port), for tshark on the host
#           (lib/v4-capture-check.sh)
# For each minor version, with `mount -o vers=V,proto=PROTO,port=PORT` (no rpcbind, no MOUNT protocol):
#   1. phase 1 of guest/workload.sh, compared command by command with the same commands on a local
#      tmpfs (the trees are compared after step 3); df of the mount equals df of what the server
#      exports;
#   2. byte-range locks (guest/locks-v4.py locks): two processes on this client and one on a second
#      client (a mount of the other minor version, which is another client ID to the server): fcntl
#      F_SETLK/F_GETLK/F_SETLKW conflicts and wake-ups, flock(2), shared lockf() ranges;
#   3. server restart while a file is open with a lock held (locks-v4.py hold): the client reclaims
#      its open and lock state in the grace period, the same descriptor reads and writes, the second
#      client finds the lock held again, and the tree (read with the client's caches dropped) equals
#      the local one (lib/manifest.py);
#   4. (full) phase 2: 100 MiB written with fsync, read back uncached, a 5 GiB sparse file;
#   5. umount/remount (full: the whole tree verified again); rm -rf, umount. The client's counters
#      (lib/mountstats_v4.py) must show no bad XID, no major timeout, no RPC-over-RDMA reply the
#      client could not parse, and before the restart no retransmission and no reconnect; the kernel
#      must log nothing about NFS/RPC but the knfsd restart's grace lines.
# OUT (shared read-write with the host) receives the log on stdout, reason, summary, transcripts,
# manifests, server.log (nfsbench) and dmesg.txt.
#
# Server restart: knfsd is stopped with `rpc.nfsd 0` (threads, listeners and all NFSv4 state go) and
# started again with a 15 s grace period (/proc/fs/nfsd/nfsv4gracetime, settable while no nfsd runs).
# knfsd here tracks clients through the nfsdcltrack upcall, which does not end grace early when all
# clients have sent RECLAIM_COMPLETE (only nfsdcld v2 tracking does), so grace simply runs its 15 s;
# v4_end_grace is not written (it would end grace before the client reclaimed). lockd's own grace
# (fs.nfs.nlm_grace_period, 10 s here) also holds back NFSv4 LOCKs on knfsd: knfsd answers LOCK with
# NFS4ERR_GRACE while any lock manager of the net namespace is in grace. nfsbench is stopped with
# SIGTERM and started again on the same port and `dir:` directory.
#
# Differences between knfsd's NFSv4 and the local reference that this script accepts: none. With
# knfsd the transcripts and trees are identical to the local ones for vers=4.1 and vers=4.2, full, over
# TCP and over RDMA; guest/workload.sh needed no change for NFSv4 (its FIFO is a CREATE NF4FIFO, its
# times past 2038 fit nfstime4). Measured on a busy 2-core host (load 5, TCG): phase 1 takes 30-80 s
# per minor version, a quick version ~2.5-4 min with locks and restart, a full one ~5 min.
set -euo pipefail
OUT=$1 SERVER=$2 PROTO=$3
shift 3
CAPTURE=0
[ "${1:-}" = capture ] && { CAPTURE=1; shift; }
[ $# -gt 0 ] || set -- 4.1 4.2
VERSIONS=()
for v in "$@"; do [[ $v == *:* ]] && VERSIONS+=("$v") || VERSIONS+=("$v:full"); done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SCEN_DIR=$OUT
. "$here/../lib/common.sh"
. "$here/workload.sh"
LIB=$here/../lib
case $SERVER in knfsd|nfsbench) ;; *) fail "kernel-client-v4.sh: SERVER must be knfsd or nfsbench, not '$SERVER'" ;; esac
case $PROTO in tcp|rdma) ;; *) fail "kernel-client-v4.sh: PROTO must be tcp or rdma, not '$PROTO'" ;; esac
# (rxe traffic on one device reaches no capturable interface)
[ $CAPTURE = 0 ] || [ "$PROTO" = tcp ] || fail "kernel-client-v4.sh: capture needs PROTO tcp"
FULL=0
for v in "${VERSIONS[@]}"; do
  case $v in 4.1:full|4.2:full) FULL=1 ;; 4.1:quick|4.2:quick) ;;
    *) fail "kernel-client-v4.sh: VERS must be 4.1 or 4.2, with :full or :quick, not '$v'" ;; esac
done

MNT=/mnt/nfs            # the client under test
MNT2=/mnt/nfs-other     # the second client (the other minor version, over TCP)
LOCAL=/srv/local
SRC=/srv/src
EXPORT_DIR=/srv/export  # nfsbench's dir: backend
cleanup() {
  local rc=$?
  set +e
  cd /
  for m in "$MNT2" "$MNT"; do
    mountpoint -q "$m" && { timeout -k 2 20 umount "$m" 2>/dev/null || umount -f -l "$m" 2>/dev/null; }
  done
  if [ "$SERVER" = nfsbench ]; then
    stop_server || { [ $rc = 0 ] && { _reason reason "the server did not shut down cleanly"; rc=1; }; }
  fi
  dmesg > "$OUT/dmesg.txt" 2>/dev/null
  exit $rc
}
trap cleanup EXIT

# --- setup ---------------------------------------------------------------------------------------
step "guest: kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB; server $SERVER over $PROTO, vers ${VERSIONS[*]}"
for m in sunrpc nfs nfsv4; do modprobe "$m" || fail "modprobe $m"; done
HOST=127.0.0.1
if [ "$PROTO" = rdma ]; then
  . "$INTEROP_ROOT/lab/vm/guest/rxe.sh" || fail "Soft-RoCE setup (lab/vm/guest/rxe.sh) failed"
  modprobe rpcrdma || fail "modprobe rpcrdma"
  HOST=$RXE_IP
fi

server_start() { # server_start [PORT]: the server under test, listening again on PORT when given
  if [ "$SERVER" = knfsd ]; then
    if [ -z "${1:-}" ]; then
      # lockd's grace period holds back NFSv4 LOCKs too (see the header): the minimum, 10 s.
      modprobe lockd && echo 10 > /proc/sys/fs/nfs/nlm_grace_period || fail "cannot set lockd's grace period"
      . "$INTEROP_ROOT/lab/vm/guest/knfsd.sh" || fail "knfsd setup (lab/vm/guest/knfsd.sh) failed"
      EXPORT_DIR=$NFSD_EXPORT EXPORT_PATH=/ TCP_PORT=2049
    else
      echo 15 > /proc/fs/nfsd/nfsv4gracetime || fail "cannot set knfsd's grace period"
      rpc.nfsd "$NFSD_THREADS" || fail "rpc.nfsd $NFSD_THREADS (restart) failed"
      if [ "$PROTO" = rdma ]; then echo 'rdma 20049' > /proc/fs/nfsd/portlist || fail "knfsd: no RDMA listener after the restart"; fi
    fi
  else
    # --state-dir: the file-handle key (and whatever the server keeps across a restart) outside the export
    local args=(--listen "$HOST:${1:-0}" --export "/export=dir:$EXPORT_DIR" --state-dir /srv/nfsbench-state)
    [ "$PROTO" = rdma ] && args+=(--rdma --rdma-listen "$RXE_IP:20049")
    mkdir -p "$EXPORT_DIR"
    start_server "$OUT" "${args[@]}"
    EXPORT_PATH=/export TCP_PORT=$SERVER_PORT
  fi
}
server_stop() {
  if [ "$SERVER" = knfsd ]; then
    rpc.nfsd 0 || fail "rpc.nfsd 0 failed"
    [ "$(cat /proc/fs/nfsd/threads)" = 0 ] || fail "knfsd still has threads after rpc.nfsd 0"
  else
    stop_server || fail "the server did not shut down cleanly for the restart"
  fi
}
# (not server_alive: common.sh's check_server_alive calls that one)
server_ok() { [ "$SERVER" = knfsd ] || check_server_alive "$@"; }

# Everything the kernel logs from here on is the test's business (see kernel_log_check).
echo "nfsbench-interop: test starts" > /dev/kmsg
mkdir -p "$MNT" "$MNT2" "$LOCAL" "$SRC"
mount -t tmpfs -o size=400M tmpfs "$LOCAL"
mount -t tmpfs -o size=200M tmpfs "$SRC"
mkdir -p "$EXPORT_DIR"
[ "$SERVER" = nfsbench ] && { mount -t tmpfs -o size=1G tmpfs "$EXPORT_DIR" || fail "tmpfs for the dir: export"; }
t0=$(now_ns)
make_sources "$SRC" "$FULL"
log "source data made in $(elapsed_since "$t0") s"
server_start
PORT=$TCP_PORT; [ "$PROTO" = rdma ] && PORT=20049

# --- helpers ---------------------------------------------------------------------------------------
mount_nfs() { # mount_nfs: the client under test, vers=$V
  must 90 "mount -o $OPTS" mount -t nfs -o "$OPTS" "$HOST:$EXPORT_PATH" "$MNT"
  log "mounted: $(grep " $MNT nfs" /proc/mounts)"
  # A vers=4.x mount over RDMA must really use RDMA: the Linux client joins a mount to an existing
  # client of the same owner string (the same minor version), whatever its transport.
  local xprt
  xprt=$(awk -v m=" mounted on $MNT with fstype " '/^device /{inside = index($0, m) > 0}
                                                    inside && $1 == "xprt:" {print $2; exit}' /proc/self/mountstats)
  [ "$xprt" = "$PROTO" ] || fail "vers=$V: the mount uses transport '$xprt', not $PROTO"
  CONNECTS=$(python3 "$LIB/mountstats.py" --connects "$MNT") || fail "no transport statistics for $MNT"
  RXE_FAULTS_AT_MOUNT=$(rxe_client_faults)
}
umount_nfs() { # umount_nfs [--after-restart]
  cd /
  log "kernel client's counters for this mount (/proc/self/mountstats):"
  python3 "$LIB/mountstats_v4.py" "$MNT" ${CONNECTS:+--connects "$CONNECTS"} --provider-faults "$(rxe_faults_since_mount)" "$@" \
    || fail "the kernel client saw transport trouble on $MNT (see above)"
  must 60 "umount $MNT" umount "$MNT"
  server_ok "after umount"
}
transcript_compare() { # transcript_compare N: the local and NFS transcripts of phase N are identical
  local a=$OUT/transcript.local.$1 b=$OUT/transcript.nfs.$1.v$V
  if ! cmp -s "$a" "$b"; then
    diff -a -u "$a" "$b" | head -n 120 || true
    fail "vers=$V phase $1: the NFS run differs from the local reference (diff above: - local tmpfs, + NFS)"
  fi
  log "vers=$V phase $1: transcripts identical ($(grep -c '^\$ ' "$a") commands)"
}
manifest_compare() { # manifest_compare ID WHAT: the NFS tree holds exactly what the local tree holds
  local id=$1 timed=() p
  for p in "${TIMED[@]}"; do timed+=(--timed "$p"); done
  local ref=$OUT/manifest.local.${id%%-*}
  tmo 300 python3 "$LIB/manifest.py" "$MNT/w" "${timed[@]}" > "$OUT/manifest.nfs.$id.v$V" \
    || fail "vers=$V $2: cannot read the tree back over NFS (manifest.py failed)"
  python3 "$LIB/manifest.py" --compare "$ref" "$OUT/manifest.nfs.$id.v$V" \
    || fail "vers=$V $2: the NFS tree differs from the local reference (diff above: - local, + NFS)"
}
df_total() { tmo 30 df -k -P "$1" | awk 'NR == 2 {print $2}'; }
df_used() { tmo 30 df -k -P "$1" | awk 'NR == 2 {print $3}'; }
# kernel_log_check: as common.sh's check_kernel_log, but knfsd's restart announces its grace period
# and client tracking, which is what the restart test asks for.
kernel_log_check() {
  local msgs
  msgs=$(dmesg | sed -n '/nfsbench-interop: test starts/,$p' | sed 1d \
    | grep -Ei 'nfs|rpc|xdr|xprt|lockd|svc' \
    | grep -Ev 'Registering the id_resolver|Key type id_(resolver|legacy)|Registered .* transport module' \
    | grep -Ev 'NFSD: starting [0-9]+-second grace period|NFSD: Using [A-Za-z0-9 ]+ client tracking operations' || true)
  if [ -n "$msgs" ]; then
    echo "$msgs"
    fail "the kernel logged NFS/RPC messages: $(echo "$msgs" | sed -n 1p | sed 's/^\[[^]]*\] //')"
  fi
}

# --- the local reference, once: transcripts and the tree after each phase -----------------------
local_manifest() { # local_manifest N
  local timed=() p
  for p in "${TIMED[@]}"; do timed+=(--timed "$p"); done
  must 300 "manifest of the local tree" python3 "$LIB/manifest.py" "$LOCAL/w" "${timed[@]}" > "$OUT/manifest.local.$1"
}
step "phase 1 on the local tmpfs (reference)"
mkdir -p "$LOCAL/w"
cd "$LOCAL/w"; T=$OUT/transcript.local.1; : > "$T"; phase_small; cd /
local_manifest 1
if [ "$FULL" = 1 ]; then
  step "phase 2 (100 MiB) on the local tmpfs (reference)"
  cd "$LOCAL/w"; T=$OUT/transcript.local.2; : > "$T"; phase_bulk > /dev/null; cd /
  local_manifest 2
fi

# --- one minor version ---------------------------------------------------------------------------
# run_version V MODE: MODE full runs phase 2 (100 MiB) too, quick only phase 1 (see the header).
run_version() {
  V=$1
  local mode=$2 other=4.2 t0 p1 bulk=
  [ "$V" = 4.2 ] && other=4.1
  OPTS=vers=$V,proto=$PROTO,port=$PORT
  OPTS2=vers=$other,proto=tcp,port=$TCP_PORT

  step "vers=$V phase 1 over NFS ($OPTS)"
  if [ $CAPTURE = 1 ]; then
    echo "$PORT" > "$OUT/capture.port"
    start_tcpdump "$OUT/kernel-v4.$V.pcap" "tcp port $PORT"
  fi
  mount_nfs
  must 30 "mkdir $MNT/w" mkdir "$MNT/w"
  t0=$(now_ns)
  cd "$MNT/w"; T=$OUT/transcript.nfs.1.v$V; : > "$T"; phase_small; cd /
  p1=$(elapsed_since "$t0")
  server_ok "during phase 1"
  [ $CAPTURE = 0 ] || stop_tcpdump "$OUT/kernel-v4.$V.pcap"
  transcript_compare 1
  local total_nfs total_local
  total_nfs=$(df_total "$MNT") total_local=$(df_total "$EXPORT_DIR")
  log "df: ${total_nfs} KiB over NFS, ${total_local} KiB on the server's file system"
  [ "$total_nfs" = "$total_local" ] || fail "vers=$V df: total $total_nfs KiB over NFS, the export's file system has $total_local KiB"

  step "vers=$V byte-range locks: two processes here, one on a second client ($OPTS2)"
  must 90 "mount -o $OPTS2 (second client)" mount -t nfs -o "$OPTS2" "$HOST:$EXPORT_PATH" "$MNT2"
  # (outside w/, which must keep matching the local reference)
  must 30 "mkdir $MNT/locks" mkdir "$MNT/locks"
  must 180 "byte-range locks (locks-v4.py locks)" python3 "$here/locks-v4.py" locks "$MNT/locks/locked" "$MNT2/locks/locked"
  log "kernel client's counters before the restart (/proc/self/mountstats):"
  python3 "$LIB/mountstats_v4.py" "$MNT" ${CONNECTS:+--connects "$CONNECTS"} --provider-faults "$(rxe_faults_since_mount)" \
    || fail "vers=$V: the kernel client saw transport trouble on $MNT before the restart (see above)"

  step "vers=$V server restart with a file open and a lock held"
  local sig=$OUT/restart.v$V rc=0 holder
  rm -rf "$sig"; mkdir -p "$sig"
  python3 "$here/locks-v4.py" hold "$MNT/locks/held-open" "$sig" > "$OUT/holder.v$V.log" 2>&1 &
  holder=$!
  wait_for 60 "the holder's open file and lock" test -e "$sig/held"
  must 60 "the other client sees the lock" python3 "$here/locks-v4.py" probe "$MNT2/locks/held-open" held
  t0=$(now_ns)
  server_stop
  server_start "$TCP_PORT"
  touch "$sig/go"
  wait_for 180 "the holder's write after the restart" test -e "$sig/wrote"
  log "the holder wrote through its descriptor $(elapsed_since "$t0") s after the restart began"
  must 120 "the other client sees the reclaimed lock" python3 "$here/locks-v4.py" probe "$MNT2/locks/held-open" held
  touch "$sig/release"
  tmo 60 tail --pid=$holder -f /dev/null || true
  wait $holder || rc=$?
  cat "$OUT/holder.v$V.log"
  [ $rc = 0 ] || fail "vers=$V: the descriptor held across the server restart failed (locks-v4.py hold, status $rc)"
  must 60 "the lock is free once released" python3 "$here/locks-v4.py" probe "$MNT2/locks/held-open" free
  log "server restart survived in $(elapsed_since "$t0") s"
  must 60 "umount the second client" umount "$MNT2"
  drop_caches
  manifest_compare 1-restart "phase 1 after the server restart"

  if [ "$mode" = full ]; then
    step "vers=$V phase 2 over NFS"
    local used_before used_after
    used_before=$(df_used "$MNT")
    cd "$MNT/w"; T=$OUT/transcript.nfs.2.v$V; : > "$T"; bulk=$(phase_bulk); cd /
    log "100 MiB over NFS: $(echo $bulk)"
    server_ok "during phase 2"
    transcript_compare 2
    used_after=$(df_used "$MNT")
    [ $((used_after - used_before)) -ge 102400 ] \
      || fail "vers=$V df: used grew by $((used_after - used_before)) KiB for a 100 MiB file"
  fi
  umount_nfs --after-restart
  step "vers=$V remount, verify everything"
  mount_nfs
  # (quick: the tree was verified after the restart, with the client's caches dropped)
  if [ "$mode" = full ]; then manifest_compare 2-remount "phases 1+2 after umount/remount"; fi

  step "vers=$V rm -rf over NFS"
  must 300 "rm -rf $MNT/w $MNT/locks" rm -rf "$MNT/w" "$MNT/locks"
  local left; left=$(ls -A "$MNT" | wc -l)
  [ "$left" = 0 ] || { ls -la "$MNT"; fail "vers=$V: the export still lists $left entries after rm -rf"; }
  umount_nfs
  local line="vers=$V ($mode): phase 1 ${p1} s"
  [ -z "$bulk" ] || line+="; 100 MiB $(echo $bulk | sed 's/ ([^)]*)//g')"
  summary "$line"
}

for vm in "${VERSIONS[@]}"; do run_version "${vm%%:*}" "${vm#*:}"; done

kernel_log_check
if [ "$SERVER" = nfsbench ]; then
  check_server_alive "at the end"
  server_log_check
  stop_server || fail "the server did not shut down cleanly after the test"
fi
step "kernel client v4 workload passed ($SERVER over $PROTO, vers ${VERSIONS[*]})"
