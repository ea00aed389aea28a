#!/bin/bash
# tests/interop/guest/nfsbench-client.sh OUT [PROTO] — runs INSIDE the lab VM (lab/vm/run.sh), as root.
#
# nfsbench's own NFSv3 client (`$NFSBENCH run`, a host binary seen through the VM's read-only root)
# against the Linux kernel NFS server: knfsd exporting a tmpfs (lab/vm/guest/knfsd.sh: rpcbind on 111,
# rpc.mountd on $MOUNTD_PORT, nfsd on 2049; the export is `insecure` because the client's source ports
# are unprivileged). Steps, each an `nfsbench run` checked through its JSON (lib/nfsbench_run_check.py):
#   1. 64 MiB sequential write, bs=1m, verify=crc32c (write, then the verify read) — the client finds
#      MOUNT and NFS through the port mapper (no port=/mountport=)
#   2. the same file read back sequentially with verify, then 3. randomly (bs=64k, iodepth 16)
#   4. a copy of that file corrupted on the server's side must fail verify, at the corrupted offset
#   5. 8 MiB of 4 KiB random writes, verify=crc32c with the default verify_interval, fsync=32 (COMMITs),
#      captured with tcpdump (TCP) for the host to dissect; knfsd's own counters must show every WRITE
#      and COMMIT
#   6. nconnect=4, explicit port=2049,mountport=$MOUNTD_PORT: a 20 s time_based 4 KiB randread with
#      verify over the 64 MiB file; during it `ss -tn` must show exactly 4 connections to port 2049
#   7. (TCP) `--wan rtt=20ms`: 4 KiB random reads one at a time take the emulated round trip more than
#      without the link (median at least 19 ms more)
# Throughout: knfsd counts no bad RPC call and no retransmission (reply-cache hit), the kernel logs
# nothing about NFS/RPC.
# OUT (shared read-write with the host) receives: STEP.out (normal + JSON output), STEP.err,
# nfsbench-client-knfsd.pcap (TCP), ss-nconnect.txt, nfsd-stats.txt, rpcinfo.txt, reason, summary,
# dmesg.txt.
# PROTO: tcp (default) or rdma (Soft-RoCE, port 20049; only once the client has an RDMA transport).
set -euo pipefail
OUT=$1 PROTO=${2:-tcp}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SCEN_DIR=$OUT
. "$here/../lib/common.sh"
CHECK=$here/../lib/nfsbench_run_check.py
case $PROTO in tcp|rdma) ;; *) fail "nfsbench-client.sh: PROTO must be tcp or rdma, not '$PROTO'" ;; esac
[ -x "${NFSBENCH:-}" ] || fail "NFSBENCH=${NFSBENCH:-} is not an executable nfsbench binary"

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
HOST=127.0.0.1 OPTS=vers=3,proto=tcp REG=()
if [ "$PROTO" = rdma ]; then
  . "$INTEROP_ROOT/lab/vm/guest/rxe.sh" || fail "Soft-RoCE setup (lab/vm/guest/rxe.sh) failed"
  HOST=$RXE_IP OPTS=vers=3,proto=rdma,port=20049,mountproto=tcp
  # One queue pair, its pool registered once; no chunk of these jobs outgrows a piece of it, so no I/O
  # registers memory (the verbs provider's windows are memory windows on rxe).
  REG=(registrations=1)
fi
. "$INTEROP_ROOT/lab/vm/guest/knfsd.sh" || fail "knfsd setup (lab/vm/guest/knfsd.sh) failed"
EXPORT=$NFSD_EXPORT
TARGET=$HOST:$EXPORT
log "knfsd: $(cat /proc/fs/nfsd/threads) threads, versions $(cat /proc/fs/nfsd/versions), ports $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
log "exports: $(exportfs -v | tr -s ' \t\n' ' ')"
exportfs -v | grep -q 'insecure' \
  || fail "knfsd's export lacks 'insecure': nfsbench's client uses unprivileged source ports"
# The client's port-mapper path: rpcbind must map MOUNT v3 and NFS v3 over TCP.
tmo 30 rpcinfo -p 127.0.0.1 > "$OUT/rpcinfo.txt" || { cat "$OUT/rpcinfo.txt"; fail "rpcinfo -p 127.0.0.1 failed"; }
grep -Eq "^ *100005 +3 +tcp +$MOUNTD_PORT +mountd" "$OUT/rpcinfo.txt" \
  || { cat "$OUT/rpcinfo.txt"; fail "rpcbind does not map MOUNT v3/tcp to rpc.mountd on $MOUNTD_PORT"; }
grep -Eq '^ *100003 +3 +tcp +2049 +nfs' "$OUT/rpcinfo.txt" \
  || { cat "$OUT/rpcinfo.txt"; fail "rpcbind does not map NFS v3/tcp to 2049"; }
log "rpcbind maps MOUNT v3/tcp -> $MOUNTD_PORT, NFS v3/tcp -> 2049"
# Everything the kernel logs from here on is the test's business (see check_kernel_log).
echo "nfsbench-interop: test starts" > /dev/kmsg

# knfsd's counters (/proc/net/rpc/nfsd): proc3 NAME -> field; rpc_bad -> badcalls+badfmt+badauth+badclnt.
declare -A P3=([READ]=9 [WRITE]=10 [CREATE]=11 [FSINFO]=22 [COMMIT]=24)
nfsd_proc3() { awk -v f="${P3[$1]}" '$1 == "proc3" { print $f }' /proc/net/rpc/nfsd; }
nfsd_rpc_bad() { awk '$1 == "rpc" { print $3 + $4 + $5 + $6 }' /proc/net/rpc/nfsd; }
nfsd_drc_hits() { awk '$1 == "rc" { print $2 }' /proc/net/rpc/nfsd; }   # retransmitted calls answered from the DRC
nfsd_stats() { { echo "== $1"; cat /proc/net/rpc/nfsd; } >> "$OUT/nfsd-stats.txt"; }
nfsd_stats "before"

# RETRANS: the retransmissions our client reported (its JSON's rpc_retransmissions) over all runs so far.
# A connection lost under load (Soft-RoCE in a starved VM) makes the client resend the calls it had out,
# as the kernel client does; knfsd's reply cache may answer those, and nothing else.
RETRANS=0
check_nfsd_clean() {
  local bad; bad=$(nfsd_rpc_bad)
  [ "$bad" = 0 ] || { grep '^rpc' /proc/net/rpc/nfsd; fail "knfsd counted $bad bad RPC calls ($1): badcalls/badfmt/badauth/badclnt"; }
  [ "$(nfsd_drc_hits)" -le "$RETRANS" ] \
    || fail "knfsd's reply cache answered $(nfsd_drc_hits) retransmitted calls ($1); the client retransmitted $RETRANS"
}
# retrans_of TEXT: the retransmissions a checker line in TEXT reports (the last one; 0 without one).
retrans_of() { sed -n 's/.*retrans=\([0-9]*\).*/\1/p' <<< "$1" | tail -n1 | grep . || echo 0; }

# nb NAME SECS EXPECT... -- RUN-ARGS...: one `nfsbench run --name=NAME ... --output-format=normal,json`,
# output in OUT/NAME.out, stderr in OUT/NAME.err; must exit 0 within SECS and pass
# nfsbench_run_check.py with EXPECT (KEY=VALUE...). Sets NB_LINE (the checker's summary), NB_SECS.
nb() {
  local name=$1 secs=$2 expect=() rc=0 t0; shift 2
  while [ "$1" != -- ]; do expect+=("$1"); shift; done; shift
  log "\$NFSBENCH run --name=$name $* --output-format=normal,json"
  t0=$(now_ns)
  tmo "$secs" "$NFSBENCH" run --name="$name" "$@" --output-format=normal,json --output "$OUT/$name.out" \
    2> "$OUT/$name.err" || rc=$?
  NB_SECS=$(elapsed_since "$t0")
  cat "$OUT/$name.err"
  if [ $rc != 0 ]; then
    tail -n 40 "$OUT/$name.out" 2>/dev/null || true
    [ $rc = 124 ] || [ $rc = 137 ] && fail "nfsbench run --name=$name: timed out after ${secs}s"
    fail "nfsbench run --name=$name: exit status $rc: $(grep -m1 -E 'nfsbench|ERROR' "$OUT/$name.err" || true)"
  fi
  NB_LINE=$(python3 "$CHECK" "$OUT/$name.out" "${expect[@]}") || { echo "$NB_LINE"; fail "nfsbench run --name=$name: $(echo "$NB_LINE" | grep '^BAD')"; }
  RETRANS=$((RETRANS + $(retrans_of "$NB_LINE")))
  log "$NB_LINE (${NB_SECS} s wall)"
  check_nfsd_clean "after $name"
}

MiB=1048576
SIZE=$((64 * MiB))
FILE=$EXPORT/seq.0.0     # fio's name for job 'seq', clone 0, file 0

# --- 1..3: 64 MiB written and read back with verify --------------------------------------------------
step "1. sequential write + verify, $((SIZE / MiB)) MiB, bs=1m, MOUNT/NFS ports from the port mapper"
w0=$(nfsd_proc3 WRITE)
nb seq 300 bs=$MiB write_bytes=$SIZE read_bytes=$SIZE "${REG[@]}" -- \
  --rw=write --bs=1m --size=$SIZE --verify=crc32c --verify_interval=4k --target "$TARGET" -o "$OPTS"
s_write="write+verify ${NB_SECS} s"
[ -f "$FILE" ] || { ls -la "$EXPORT"; fail "nfsbench wrote no $FILE in the kernel server's export"; }
[ "$(stat -c %s "$FILE")" = $SIZE ] || fail "$FILE has $(stat -c %s "$FILE") bytes on the server, expected $SIZE"
[ $(($(nfsd_proc3 WRITE) - w0)) -ge 64 ] || fail "knfsd counted $(($(nfsd_proc3 WRITE) - w0)) WRITEs for 64 MiB in 1 MiB blocks"
# A server-side look at the data: every 4 KiB unit of the file in knfsd's tmpfs starts with a verify
# header (nfsbench's layout: magic, length, then the unit's own offset, big-endian) naming its offset.
python3 - "$FILE" <<'PY' || fail "the file on the server does not carry its verify headers where they belong"
import struct, sys
data = open(sys.argv[1], "rb").read()
magics = {data[o:o + 4] for o in range(0, len(data), 4096)}
wrong = [o for o in range(0, len(data), 4096) if struct.unpack(">Q", data[o + 8:o + 16])[0] != o]
print("[server] %d units of 4 KiB, %d distinct magic(s) %s, %d misplaced"
      % (len(data) // 4096, len(magics), [m.hex() for m in list(magics)[:3]], len(wrong)))
sys.exit(0 if len(magics) == 1 and not wrong and b"\0\0\0\0" not in magics else 1)
PY

step "2. sequential read + verify of the same file"
nb seqread 300 bs=$MiB read_bytes=$SIZE write_bytes=0 "${REG[@]}" -- \
  --filename=seq.0.0 --rw=read --bs=1m --size=$SIZE --verify=crc32c --verify_interval=4k --target "$TARGET" -o "$OPTS"
s_read="read+verify ${NB_SECS} s"

step "3. random read + verify of the same file, bs=64k, iodepth=16"
nb randread 300 bs=65536 read_bytes=$SIZE read_ios=$((SIZE / 65536)) write_bytes=0 "${REG[@]}" -- \
  --filename=seq.0.0 --rw=randread --bs=64k --iodepth=16 --size=$SIZE --verify=crc32c --verify_interval=4k \
  --target "$TARGET" -o "$OPTS"
s_randread="randread+verify ${NB_SECS} s"

step "4. verify must catch data corrupted on the server"
BAD_OFF=$((40 * MiB + 8192 + 100))
cp "$FILE" "$EXPORT/corrupt.bin"
printf 'nfsbench' | dd of="$EXPORT/corrupt.bin" bs=1 seek=$BAD_OFF conv=notrunc status=none
rc=0
tmo 300 "$NFSBENCH" run --name=corrupt --filename=corrupt.bin --rw=read --bs=1m --size=$SIZE --verify=crc32c \
  --verify_interval=4k --target "$TARGET" -o "$OPTS" --output-format=json --output "$OUT/corrupt.out" \
  2> "$OUT/corrupt.err" || rc=$?
cat "$OUT/corrupt.err"
[ $rc = 1 ] || fail "reading a corrupted file with verify: exit status $rc, expected 1"
grep -q "verify failed at offset $((BAD_OFF / 4096 * 4096))" "$OUT/corrupt.err" \
  || fail "reading a corrupted file with verify: no 'verify failed at offset $((BAD_OFF / 4096 * 4096))' on stderr"
line=$(python3 "$CHECK" "$OUT/corrupt.out" || true)
grep -q '^BAD: .*; 1 verify errors$' <<< "$line" || { echo "$line"; fail "reading a corrupted file with verify: the JSON does not report exactly 1 verify error"; }
log "the corruption at byte $BAD_OFF was reported in the 4 KiB unit at $((BAD_OFF / 4096 * 4096)), exit status 1"
rm -f "$EXPORT/corrupt.bin"
check_nfsd_clean "after the corrupted read"

# --- 5: 4 KiB random writes with fsync=32 (COMMIT against a real server) ---------------------------------
RW=$((8 * MiB))
step "5. 4 KiB randwrite + verify (default verify_interval), fsync=32, $((RW / MiB)) MiB, iodepth=8"
PCAP=$OUT/nfsbench-client-knfsd.pcap
if [ "$PROTO" = tcp ]; then
  start_tcpdump "$PCAP" "tcp port 111 or tcp port 2049 or tcp port $MOUNTD_PORT"
fi
w0=$(nfsd_proc3 WRITE) c0=$(nfsd_proc3 COMMIT)
# fsync=32: a COMMIT after every 32 writes, once those writes are answered (as fio's fsync waits for
# the writes before it), $((RW / 4096 / 32)) in all; nothing is left unstable for a closing COMMIT.
nb rand4k 300 bs=4096 write_bytes=$RW write_ios=$((RW / 4096)) read_bytes=$RW \
  syncs=$((RW / 4096 / 32)) -- \
  --rw=randwrite --bs=4k --iodepth=8 --size=$RW --verify=crc32c --fsync=32 --target "$TARGET" -o "$OPTS"
s_rand4k="4k randwrite+verify ${NB_SECS} s"
syncs=$(sed -n 's/.*syncs=\([0-9]*\).*/\1/p' <<< "$NB_LINE")
writes=$(($(nfsd_proc3 WRITE) - w0)) commits=$(($(nfsd_proc3 COMMIT) - c0))
log "knfsd counted $writes WRITE and $commits COMMIT calls for this job; the client reports $syncs syncs"
# Exactly the job's calls, plus at most the client's own retransmissions (each counted again by knfsd).
rt=$(retrans_of "$NB_LINE")
[ "$rt" = 0 ] || log "the client retransmitted $rt calls during this job (see rand4k.err)"
[ "$writes" -ge $((RW / 4096)) ] && [ "$writes" -le $((RW / 4096 + rt)) ] \
  || fail "knfsd counted $writes WRITEs, the job issued $((RW / 4096)) and retransmitted $rt calls"
[ "$commits" -ge "$syncs" ] && [ "$commits" -le $((syncs + rt)) ] \
  || fail "knfsd counted $commits COMMITs, the client reports $syncs syncs and $rt retransmissions"
echo "$writes $commits" > "$OUT/rand4k.counts"
[ "$(stat -c %s "$EXPORT/rand4k.0.0")" = $RW ] || fail "rand4k.0.0 has $(stat -c %s "$EXPORT/rand4k.0.0") bytes on the server"
if [ "$PROTO" = tcp ]; then
  stop_tcpdump "$PCAP"
  echo "$MOUNTD_PORT" > "$OUT/mountd.port"
  touch "$OUT/capture.done"
  log "capture: $(stat -c %s "$PCAP") bytes in $PCAP"
fi

# --- 6: nconnect=4 -------------------------------------------------------------------------------------
NC_SECS=20
step "6. nconnect=4, port=2049,mountport=$MOUNTD_PORT: ${NC_SECS} s time_based 4 KiB randread + verify, iodepth=16"
NC_OPTS=$OPTS,nconnect=4
[ "$PROTO" = tcp ] && NC_OPTS=$OPTS,port=2049,mountport=$MOUNTD_PORT,nconnect=4
(nb nc4 $((NC_SECS + 240)) bs=4096 connections=4 min_read_ios=100 write_bytes=0 -- \
  --filename=seq.0.0 --rw=randread --bs=4k --iodepth=16 --size=$SIZE --verify=crc32c --time_based \
  --runtime=$NC_SECS --target "$TARGET" -o "$NC_OPTS" > "$OUT/nc4.log" 2>&1) &
BG=$!
if [ "$PROTO" = tcp ]; then
  # Client sockets to 2049 (only nfsbench connects to knfsd here) and the server's side of them.
  max=0 samples=0 seen4=0
  : > "$OUT/ss-nconnect.txt"
  deadline=$((SECONDS + NC_SECS + 240))
  while kill -0 $BG 2>/dev/null && [ $SECONDS -lt $deadline ]; do
    snap=$(ss -Htnp state established '( dport = :2049 )' 2>/dev/null || true)
    n=$(printf '%s' "$snap" | grep -c 'nfsbench' || true)
    if [ "$n" -gt 0 ]; then
      samples=$((samples + 1))
      [ "$n" -gt "$max" ] && max=$n
      if [ "$n" = 4 ] && [ $seen4 = 0 ]; then
        seen4=1
        { echo "== ss -tnp state established '( dport = :2049 )' (client side), $(date +%T)"; echo "$snap"
          echo "== ss -tn state established '( sport = :2049 )' (knfsd side)"
          ss -Htn state established '( sport = :2049 )'; } >> "$OUT/ss-nconnect.txt"
      fi
    fi
    sleep 0.5
  done
fi
rc=0; wait $BG || rc=$?; BG=
cat "$OUT/nc4.log"
# The run was in a subshell: its retransmissions come from its log line.
RETRANS=$((RETRANS + $(retrans_of "$(grep 'nc4: ' "$OUT/nc4.log" || true)")))
[ $rc = 0 ] || fail "$(sed -n 's/.*FAIL: //p' "$OUT/nc4.log" | head -n1)"
s_nc4="nconnect=4 $(sed -n 's/.*nc4: read \([0-9.]* MiB\/s IOPS=[0-9]*\).*/\1/p' "$OUT/nc4.log" | head -n1)"
if [ "$PROTO" = tcp ]; then
  cat "$OUT/ss-nconnect.txt"
  log "ss: $samples samples with nfsbench connections to 2049, at most $max at once"
  [ $seen4 = 1 ] || fail "ss never showed 4 established connections from nfsbench to port 2049 (at most $max)"
  [ "$max" = 4 ] || fail "ss showed $max established connections from nfsbench to port 2049, nconnect=4"
  ports=$(grep -c '127.0.0.1:2049 *users:(("nfsbench"' "$OUT/ss-nconnect.txt" || true)
  [ "$ports" = 4 ] || fail "the ss snapshot does not list 4 distinct nfsbench sockets to 127.0.0.1:2049"
  s_nc4="$s_nc4, ss: 4 connections to 2049"
fi

# --- 7: a long-distance link on the client side (TCP; over RDMA --wan needs the soft provider) -------
s_wan=""
if [ "$PROTO" = tcp ]; then
  step "7. --wan rtt=20ms on the client side: 4 KiB randread at iodepth 1 for 3 s against knfsd, and without"
  # wan_run NAME [FLAGS...]: mean completion latency (ms) and reads of a 3 s 4 KiB randread at iodepth 1.
  wan_run() {
    local name=$1 rc=0; shift
    tmo 120 "$NFSBENCH" run --name="$name" --filename=seq.0.0 --rw=randread --bs=4k --iodepth=1 --size=$SIZE \
      --time_based --runtime=3 --target "$TARGET" -o "$OPTS,port=2049,mountport=$MOUNTD_PORT" "$@" \
      --output-format=json --output "$OUT/$name.json" 2> "$OUT/$name.err" || rc=$?
    cat "$OUT/$name.err" >&2
    [ $rc = 0 ] || fail "nfsbench run $* against knfsd: exit status $rc: $(head -n1 "$OUT/$name.err")"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["jobs"][0]["read"]; print("%.2f %.2f %d" % (r["clat_ns"]["percentile"]["50.000000"] / 1e6, r["clat_ns"]["mean"] / 1e6, r["total_ios"]))' "$OUT/$name.json"
  }
  plain=$(wan_run nowan)
  far=$(wan_run wan --wan rtt=20ms)
  read -r p_med p_mean _ <<< "$plain"; read -r f_med f_mean f_ios <<< "$far"
  added=$(awk -v a="$f_med" -v b="$p_med" 'BEGIN {printf "%.2f", a - b}')
  log "completion latency median (mean): $p_med ($p_mean) ms without a link, $f_med ($f_mean) ms over --wan rtt=20ms ($f_ios reads): +$added ms"
  # Every read pays the emulated round trip against the kernel server: never less (the median, so that
  # one lucky read cannot pass it). No upper bound here: under QEMU's software CPU on a loaded host the
  # link's timed wake-ups run late by as much as the VM is descheduled (+12.7 ms mean in a CI run, +18.5 ms
  # median on a host at load 8), which says nothing about the link. How exactly the link delays is
  # judged on the host by crates/wan's tests, against the same run's timer lateness.
  awk -v d="$added" 'BEGIN {exit !(d >= 19.0)}' \
    || fail "--wan rtt=20ms added only $added ms (median) to each 4 KiB read against knfsd (want at least 19 of its 20 ms)"
  s_wan=", --wan rtt=20ms: +$added ms per 4k read"
  check_nfsd_clean "after the --wan runs"
fi

nfsd_stats "after"
check_nfsd_clean "at the end"
check_kernel_log
log "knfsd counters at the end: $(grep -E '^(rpc|proc3|io) ' /proc/net/rpc/nfsd | tr '\n' ';')"
summary "knfsd/$PROTO $((SIZE / MiB)) MiB: $s_write, $s_read, $s_randread, corruption caught, $s_rand4k ($commits COMMITs), $s_nc4$s_wan"
step "nfsbench client against knfsd passed"
