#!/bin/bash
# tests/interop/lib/nfsbench-client-v4-guest.sh OUT PROTO [nconnect4] — runs INSIDE the lab VM
# (lab/vm/run.sh), as root: nfsbench's own NFSv4.1 and NFSv4.2 client (`$NFSBENCH run`, the host's
# binary through the VM's read-only root) against the Linux kernel NFS server (lab/vm/guest/knfsd.sh:
# a tmpfs exported with fsid=0, so the NFSv4 pseudo-root `/` is that tmpfs; over RDMA knfsd's port 20049
# on Soft-RoCE rxe0, lab/vm/guest/rxe.sh).
#
# For each minor version (4.1, then 4.2), on an empty export:
#   the study's job, jobs/transport-study.fio (1 MiB sequential read and write, 4 KiB random read and
#   write, numjobs 2, iodepth 8/32, direct=1), with --verify=crc32c, run to completion (--size=$SIZE
#   --time_based=0 --ramp_time=0 --runtime=300) over -o vers=V,proto=PROTO: exit 0, and
#   lib/nfsbench_v4_check.py: no job error, no verify error, no short I/O, every issued I/O completed,
#   each group moved exactly 2 x SIZE each way it moves data, the notes name vers=V and the transport;
#   knfsd's NFSv4 operation counters (/proc/net/rpc/nfsd proc4ops, before and after): one EXCHANGE_ID,
#   one CREATE_SESSION, one DESTROY_SESSION and one DESTROY_CLIENTID, SEQUENCE seen, OPENs = CLOSEs = the
#   8 job files, READs = the reads the client reports, WRITEs at least its writes; every file has SIZE
#   bytes on the server. Over TCP each run is captured (`tcpdump -i lo -s 0 -B 262144`, port 2049, no drop) into
#   OUT/v4.V.pcap for the host to dissect (lib/v4-capture-check.sh).
# With `nconnect4` (RDMA): a 10 s time_based 4 KiB random read with verify over -o vers=4.1,proto=rdma,
#   nconnect=4 of a file the study job wrote: while it runs, `rdma resource show qp` on rxe0 must show
#   four RC queue pairs of the client (one process) in RTS and knfsd's four (kernel, rdma_cm) connected
#   to exactly those (each one's remote QP number is one of the client's); knfsd's counters: one
#   EXCHANGE_ID, one CREATE_SESSION, exactly three BIND_CONN_TO_SESSION binding the other queue pairs
#   (CREATE_SESSION bound the first: RFC 8881 §18.36.4), one DESTROY_SESSION — four queue pairs on one session; the JSON notes 4 connections.
# Throughout: knfsd counts no bad RPC call, the kernel logs nothing about NFS/RPC.
# OUT (shared read-write with the host) receives per run NAME.out (normal + JSON), NAME.err, NAME.check,
# the captures, nfsd-stats.txt, qp-samples.txt, reason, summary, dmesg.txt.
set -euo pipefail
OUT=$1 PROTO=$2 NC=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SCEN_DIR=$OUT
. "$here/common.sh"
case $PROTO in tcp|rdma) ;; *) fail "nfsbench-client-v4-guest.sh: PROTO must be tcp or rdma, not '$PROTO'" ;; esac
[ -z "$NC" ] || [ "$NC" = nconnect4 ] || fail "nfsbench-client-v4-guest.sh: the third argument is nconnect4 or nothing"
[ -x "${NFSBENCH:-}" ] || fail "NFSBENCH=${NFSBENCH:-} is not an executable nfsbench binary"
JOB=$INTEROP_ROOT/jobs/transport-study.fio
CHECK=$here/nfsbench_v4_check.py
SIZE=$((4 << 20))   # per job file: 2 jobs x 4 MiB per group, every group run to completion

TCPDUMP='' BG=''
cleanup() {
  local rc=$?
  set +e
  [ -n "$BG" ] && kill "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
  if [ -n "$TCPDUMP" ]; then kill -INT "$TCPDUMP" 2>/dev/null; wait "$TCPDUMP" 2>/dev/null; fi
  dmesg > "$OUT/dmesg.txt" 2>/dev/null
  exit $rc
}
trap cleanup EXIT

# --- setup ---------------------------------------------------------------------------------------
step "guest: kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"
HOST=127.0.0.1
if [ "$PROTO" = rdma ]; then
  . "$INTEROP_ROOT/lab/vm/guest/rxe.sh" || fail "Soft-RoCE setup (lab/vm/guest/rxe.sh) failed"
  HOST=$RXE_IP
fi
. "$INTEROP_ROOT/lab/vm/guest/knfsd.sh" || fail "knfsd setup (lab/vm/guest/knfsd.sh) failed"
EXPORT=$NFSD_EXPORT
log "knfsd: $(cat /proc/fs/nfsd/threads) threads, versions $(cat /proc/fs/nfsd/versions), ports $(sort -u /proc/fs/nfsd/portlist | tr '\n' ' ')"
grep -q '+4.1' /proc/fs/nfsd/versions && grep -q '+4.2' /proc/fs/nfsd/versions \
  || fail "knfsd does not offer NFSv4.1 and 4.2: $(cat /proc/fs/nfsd/versions)"
[ "$PROTO" = tcp ] || grep -q '^rdma 20049' /proc/fs/nfsd/portlist || fail "knfsd does not listen on rdma 20049"
echo "nfsbench-interop: test starts" > /dev/kmsg

# knfsd's counters: op4 NAME -> that operation's count in the proc4ops line (RFC 8881 numbers: the line is
# "proc4ops COUNT op0 op1 ...", so operation N is field N + 3).
declare -A OP4=([CLOSE]=4 [OPEN]=18 [READ]=25 [WRITE]=38 [BIND_CONN_TO_SESSION]=41 [EXCHANGE_ID]=42
  [CREATE_SESSION]=43 [DESTROY_SESSION]=44 [SEQUENCE]=53 [DESTROY_CLIENTID]=57)
op4() { awk -v f=$((OP4[$1] + 3)) '$1 == "proc4ops" { print $f }' /proc/net/rpc/nfsd; }
declare -A BEFORE
snap4() { local k; for k in "${!OP4[@]}"; do BEFORE[$k]=$(op4 "$k"); done; }
delta4() { echo $(($(op4 "$1") - BEFORE[$1])); }
nfsd_rpc_bad() { awk '$1 == "rpc" { print $3 + $4 + $5 + $6 }' /proc/net/rpc/nfsd; }
nfsd_stats() { { echo "== $1"; grep -E '^(rpc|proc4ops|io) ' /proc/net/rpc/nfsd; } >> "$OUT/nfsd-stats.txt"; }
check_nfsd_clean() {
  local bad; bad=$(nfsd_rpc_bad)
  [ "$bad" = 0 ] || { grep '^rpc' /proc/net/rpc/nfsd; fail "knfsd counted $bad bad RPC calls ($1): badcalls/badfmt/badauth/badclnt"; }
}
nfsd_stats "before"
# want_delta OP WANT WHAT: knfsd counted WANT more OP operations (a number or LOW-HIGH) since snap4.
want_delta() {
  local got; got=$(delta4 "$1")
  local low=${2%-*} high=${2#*-}
  [ "$got" -ge "$low" ] && [ "$got" -le "$high" ] || fail "knfsd counted $got $1 operations $3, want $2"
}

# The capture: common.sh's default (a 32 MiB buffer, the file on the 9p share) drops packets when this
# guest runs alone (~70 MB in 20 s); here a 256 MiB buffer and the file in the guest's RAM, moved to OUT
# once tcpdump has written everything the kernel held for it.
cap_start() { start_tcpdump /tmp/capture.pcap "$1" 262144; }   # cap_start FILTER
cap_stop() { stop_tcpdump /tmp/capture.pcap; mv /tmp/capture.pcap "$1"; }   # cap_stop PCAP

# --- the study's job, per minor version -----------------------------------------------------------------
declare -a SUMMARY=()
study() { # study VERS
  local v=$1 name=study-v$1 rc=0 t0 secs pcap=$OUT/v$1.pcap
  step "NFSv$v over $PROTO: $(basename "$JOB") with verify=crc32c, $((SIZE >> 20)) MiB per job file, to completion"
  find "$EXPORT" -mindepth 1 -delete
  snap4
  [ "$PROTO" = tcp ] && cap_start "tcp port 2049"
  t0=$(now_ns)
  tmo 400 "$NFSBENCH" run "$JOB" --verify=crc32c --size=$SIZE --time_based=0 --ramp_time=0 --runtime=300 \
    --target "$HOST:/" -o "vers=$v,proto=$PROTO" --output-format=normal,json --output "$OUT/$name.out" \
    2> "$OUT/$name.err" || rc=$?
  secs=$(elapsed_since "$t0")
  cat "$OUT/$name.err"
  if [ "$PROTO" = tcp ]; then
    cap_stop "$pcap"
    log "capture: $(stat -c %s "$pcap") bytes in $pcap"
  fi
  if [ $rc != 0 ]; then
    tail -n 40 "$OUT/$name.out" 2>/dev/null || true
    [ $rc = 124 ] || [ $rc = 137 ] && fail "NFSv$v/$PROTO study job: timed out after 400 s"
    fail "NFSv$v/$PROTO study job: exit status $rc: $(grep -v -e 'Laying out' -e '^nfsbench: note' -e '^nfsbench: RPC-over-RDMA' "$OUT/$name.err" | head -n1)"
  fi
  rc=0
  python3 "$CHECK" "$OUT/$name.out" vers="$v" proto="$PROTO" connections=1 bytes=$((2 * SIZE)) > "$OUT/$name.check" || rc=$?
  cat "$OUT/$name.check"
  [ $rc = 0 ] || fail "NFSv$v/$PROTO study job: $(sed -n 's/^BAD: //p' "$OUT/$name.check")"
  local reads writes retrans
  read -r reads writes <<< "$(sed -n 's/^total: \([0-9]*\) reads \([0-9]*\) writes.*/\1 \2/p' "$OUT/$name.check")"
  retrans=$(sed -n 's/.*retrans=\([0-9]*\).*/\1/p' "$OUT/$name.check")
  nfsd_stats "after NFSv$v"
  log "knfsd's NFSv4 operations for this run: $(for k in "${!OP4[@]}"; do printf '%s %s, ' "$k" "$(delta4 "$k")"; done)"
  want_delta EXCHANGE_ID 1 "for one NFSv$v mount"
  want_delta CREATE_SESSION 1 "for one NFSv$v mount"
  want_delta DESTROY_SESSION 1 "for one NFSv$v unmount"
  want_delta DESTROY_CLIENTID 1 "for one NFSv$v unmount"
  [ "$(delta4 SEQUENCE)" -gt 0 ] || fail "knfsd counted no SEQUENCE in the NFSv$v run"
  want_delta OPEN 8 "(4 groups x 2 job files)"
  want_delta CLOSE 8 "(4 groups x 2 job files)"
  want_delta READ "$reads-$((reads + retrans))" "(the client reports $reads reads, $retrans retransmissions)"
  [ "$(delta4 WRITE)" -ge "$writes" ] || fail "knfsd counted $(delta4 WRITE) WRITEs, the client reports $writes writes"
  local f n=0
  for f in "$EXPORT"/*.[01].0; do
    [ "$(stat -c %s "$f")" = $SIZE ] || fail "$f has $(stat -c %s "$f") bytes on the server, want $SIZE"
    n=$((n + 1))
  done
  [ $n = 8 ] || { ls -la "$EXPORT"; fail "the export holds $n job files after the NFSv$v run, want 8"; }
  check_nfsd_clean "after the NFSv$v run"
  SUMMARY+=("v$v $secs s ($reads reads, $writes writes)")
}

study 4.1
study 4.2

# --- nconnect=4 over RDMA: four queue pairs, one session --------------------------------------------
s_nc=""
if [ "$NC" = nconnect4 ]; then
  NC_SECS=10
  step "nconnect=4 over RDMA: ${NC_SECS} s 4 KiB randread + verify over -o vers=4.1,proto=rdma,nconnect=4"
  snap4
  : > "$OUT/qp-samples.txt"
  # `timeout` itself in the background: $! is its pid, the client its child.
  timeout -k 5 $((NC_SECS + 200)) "$NFSBENCH" run --name=nc4 --filename=rand-write-4k.0.0 --rw=randread --bs=4k \
    --size=$SIZE --iodepth=16 --verify=crc32c --time_based --runtime=$NC_SECS --target "$HOST:/" \
    -o vers=4.1,proto=rdma,nconnect=4 --output-format=normal,json --output "$OUT/nc4.out" 2> "$OUT/nc4.err" &
  BG=$!
  best=0 samples=0 clients_seen=''
  while kill -0 "$BG" 2>/dev/null; do
    snap=$(rdma resource show qp link rxe0/1 2>/dev/null || true)
    # The client's RC queue pairs (a process: pid and comm nfsbench) and knfsd's (kernel: no pid, rdma_cm).
    cl=$(awk '/ type RC / && / state RTS / && / comm nfsbench/' <<< "$snap")
    sv=$(awk '/ type RC / && / state RTS / && / comm \[rdma_cm\]/ && !/ pid /' <<< "$snap")
    nc=$(grep -c . <<< "$cl" || true) ns=$(grep -c . <<< "$sv" || true)
    if [ "$nc" -gt 0 ]; then
      samples=$((samples + 1))
      if [ $((nc + ns)) -gt "$best" ]; then
        best=$((nc + ns))
        { echo "== rdma resource show qp link rxe0/1, $(date +%T): $nc client, $ns server RC queue pairs in RTS"
          echo "$snap"
          echo "== /proc/fs/nfsd/clients: $(ls /proc/fs/nfsd/clients | wc -l)"; } > "$OUT/qp-best.txt"
        clients_seen=$(ls /proc/fs/nfsd/clients | wc -l)
      fi
      echo "$(date +%T) client $nc server $ns" >> "$OUT/qp-samples.txt"
    fi
    sleep 1
  done
  rc=0; wait "$BG" || rc=$?; BG=
  cat "$OUT/nc4.err"
  [ $rc = 0 ] || fail "nconnect=4 over RDMA: nfsbench run exit status $rc: $(grep -v '^nfsbench: RPC-over-RDMA' "$OUT/nc4.err" | head -n1)"
  line=$(python3 "$here/nfsbench_run_check.py" "$OUT/nc4.out" bs=4096 connections=4 min_read_ios=100 write_bytes=0) \
    || { echo "$line"; fail "nconnect=4 over RDMA: $(grep '^BAD' <<< "$line")"; }
  log "$line"
  [ -s "$OUT/qp-best.txt" ] || fail "nconnect=4 over RDMA: rdma resource show never listed a queue pair of the client ($samples samples)"
  cat "$OUT/qp-best.txt"
  log "samples: $(tr '\n' ';' < "$OUT/qp-samples.txt")"
  # The fullest sample: 4 of each, and every server queue pair connected to one of the client's.
  python3 - "$OUT/qp-best.txt" <<'PY' || fail "nconnect=4 over RDMA: rxe0 did not show four client and four knfsd queue pairs connected pairwise (see qp-best.txt)"
import re, sys
client, server = {}, {}
for line in open(sys.argv[1]):
    if " type RC " not in line or " state RTS " not in line:
        continue
    lq = int(re.search(r" lqpn (\d+)", line).group(1))
    rq = int(re.search(r" rqpn (\d+)", line).group(1))
    pid = re.search(r" pid (\d+)", line)
    if " comm nfsbench" in line:
        client[lq] = (rq, pid.group(1) if pid else None)
    elif " comm [rdma_cm]" in line and not pid:
        server[lq] = rq
pids = {p for _, p in client.values()}
pairs = sorted((lq, rq) for lq, rq in server.items() if rq in client and client[rq][0] == lq)
print("client queue pairs %s (pids %s), knfsd's %s, connected pairs (knfsd, client) %s"
      % (sorted(client), sorted(pids), sorted(server), pairs))
sys.exit(0 if len(client) == 4 and len(server) == 4 and len(pids) == 1 and len(pairs) == 4 else 1)
PY
  [ "$clients_seen" = 1 ] || fail "nconnect=4 over RDMA: knfsd listed $clients_seen NFSv4 clients during the run, want 1"
  nfsd_stats "after nconnect=4"
  log "knfsd's NFSv4 operations for the nconnect=4 run: EXCHANGE_ID $(delta4 EXCHANGE_ID), CREATE_SESSION $(delta4 CREATE_SESSION), BIND_CONN_TO_SESSION $(delta4 BIND_CONN_TO_SESSION), DESTROY_SESSION $(delta4 DESTROY_SESSION)"
  want_delta EXCHANGE_ID 1 "for one nconnect=4 mount"
  want_delta CREATE_SESSION 1 "for one nconnect=4 mount (one session)"
  want_delta BIND_CONN_TO_SESSION 3-3 "for one nconnect=4 mount (the 3 queue pairs CREATE_SESSION did not go on)"
  want_delta DESTROY_SESSION 1 "for one nconnect=4 unmount"
  check_nfsd_clean "after nconnect=4"
  s_nc=", nconnect=4: 4 client + 4 knfsd RC queue pairs on rxe0, 1 CREATE_SESSION + $(delta4 BIND_CONN_TO_SESSION) BIND_CONN_TO_SESSION, $(sed -n 's/.*IOPS=\([0-9]*\).*/\1/p' <<< "$line") IOPS"
fi

nfsd_stats "at the end"
check_nfsd_clean "at the end"
check_kernel_log
summary "knfsd/$PROTO study job + verify=crc32c to completion: $(IFS=';'; echo "${SUMMARY[*]}" | sed 's/;/, /g')$s_nc"
step "nfsbench NFSv4 client against knfsd over $PROTO passed"
