#!/bin/bash
# interop-timeout: 300
# nfsbench-client-v4-ganesha — nfsbench's own NFSv4.1 and NFSv4.2 client against NFS-Ganesha 4.3
# (FSAL_VFS on a fresh tmpfs, lab/peers/ganesha.sh on free ports of its own, pseudo path /export,
# stopped at the end even on failure), over TCP on the host's loopback, -o vers=4.x,proto=tcp,port=NFS.
# For each minor version, on an empty export:
#   1. the study's job (jobs/transport-study.fio: 1 MiB sequential read and write, 4 KiB random read and
#      write, numjobs 2) with --verify=crc32c, run to completion (--size=4m --time_based=0), under
#      `tcpdump -i lo -s 0` (port NFS): exit 0; lib/nfsbench_v4_check.py: no job error, no verify error,
#      no short I/O, every issued I/O completed, every group moved exactly 8 MiB each way it moves data,
#      the notes name vers=4.x and tcp;
#   2. on Ganesha's tmpfs the 8 job files have 4 MiB each, and sampled 4 KiB units of the random-write
#      job's files carry nfsbench's verify headers naming their own offsets (the data landed in place);
#   3. the capture: tshark finds no malformed frame or expert error, every call answered, the minor
#      version asked for, no error status, the mount's, job's and unmount's operations; `nfsbench decode`
#      decodes every RPC message (lib/v4-capture-check.sh).
# Each minor version has a Ganesha of its own, which must still run at the end of its checks. Measured on 2 cores: 28-45 s (two ~70 MB captures dissected).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$INTEROP_ROOT/tests/interop/lib/v4-capture-check.sh"

[ "$(id -u)" = 0 ] || skip "needs root: lab/peers/ganesha.sh start (FSAL_VFS uses open_by_handle_at), tcpdump"
need_debs python3 iproute2 tcpdump tshark
GANESHA=$INTEROP_ROOT/lab/peers/ganesha.sh
# Its own state directory: nfsbench-client-ganesha's (ganesha-interop) may be in use by another run.
export GANESHA_STATE=/var/tmp/nfsbench-peers/ganesha-v4-interop GANESHA_TMPFS_SIZE=512m
JOB=$INTEROP_ROOT/jobs/transport-study.fio
SIZE=$((4 << 20))
TCPDUMP=

cleanup() {
  local rc=$?; set +e
  if [ -n "$TCPDUMP" ]; then kill -INT "$TCPDUMP" 2>/dev/null; wait "$TCPDUMP" 2>/dev/null; fi
  tmo 40 "$GANESHA" stop || { [ $rc = 0 ] && { _reason reason "lab/peers/ganesha.sh stop failed"; rc=1; }; }
  cp "$GANESHA_STATE/ganesha.log" "$SCEN_DIR/ganesha.log" 2>/dev/null
  exit $rc
}
trap cleanup EXIT
trap 'exit 143' TERM INT   # so that the EXIT trap stops Ganesha when the runner times the scenario out

# ganesha_start: Ganesha on two free ports (bound together, then released for it) and a fresh tmpfs.
# Once per minor version: files removed on the tmpfs behind Ganesha's back stay in its cache (an OPEN of
# the same name then fails NFS4ERR_STALE), so each run gets an instance of its own.
ganesha_start() {
  read -r NFS_PORT MNT_PORT < <(python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])') || fail "no free TCP ports"
  export GANESHA_NFS_PORT=$NFS_PORT GANESHA_MNT_PORT=$MNT_PORT
  [ ! -f "$GANESHA_STATE/ganesha.env" ] || must 40 "lab/peers/ganesha.sh stop (a leftover)" "$GANESHA" stop
  step "lab/peers/ganesha.sh start (NFS port $NFS_PORT, fresh tmpfs)"
  must 120 "lab/peers/ganesha.sh start" "$GANESHA" start
  "$GANESHA" status
  EXPORT_DIR=$("$GANESHA" status | sed -n 's/.* export=\(.*\)$/\1/p')
  [ -d "$EXPORT_DIR" ] && [ "$(stat -f -c %T "$EXPORT_DIR")" = tmpfs ] \
    || fail "Ganesha's export directory '$EXPORT_DIR' is not a tmpfs"
  [ -z "$(ls -A "$EXPORT_DIR")" ] || fail "Ganesha's fresh export directory is not empty"
}
VERSION=$(ganesha.nfsd -v 2>/dev/null | sed -n 's/.*Release = V\{0,1\}\([^ ]*\).*/\1/p' | head -n1)

ganesha_alive() {
  "$GANESHA" status > /dev/null 2>&1 && return 0
  tail -n 30 "$GANESHA_STATE/ganesha.log" >&2 || true
  fail "Ganesha is no longer running ($1)"
}

# The host's loopback at full speed (~70 MB in ~2 s): common.sh's start_tcpdump with a 256 MiB buffer
# (32 MiB drops packets here on a loaded host).
parts=()
run_version() { # run_version VERS
  local v=$1 name=study-v$1 rc=0 t0 secs pcap=$SCEN_DIR/v$1.pcap
  step "NFSv$v: $(basename "$JOB") with verify=crc32c, $((SIZE >> 20)) MiB per job file, to completion"
  ganesha_start
  start_tcpdump "$pcap" "tcp port $NFS_PORT" 262144
  t0=$(now_ns)
  tmo 180 "$NFSBENCH" run "$JOB" --verify=crc32c --size=$SIZE --time_based=0 --ramp_time=0 --runtime=150 \
    --target 127.0.0.1:/export -o "vers=$v,proto=tcp,port=$NFS_PORT" --output-format=normal,json \
    --output "$SCEN_DIR/$name.out" 2> "$SCEN_DIR/$name.err" || rc=$?
  secs=$(elapsed_since "$t0")
  stop_tcpdump "$pcap"
  head -n 20 "$SCEN_DIR/$name.err"
  [ $rc = 0 ] || fail "NFSv$v study job against Ganesha: exit status $rc$([ $rc = 124 ] && echo " (timed out after 180 s)"): $(grep -v -e 'Laying out' -e '^nfsbench: note' "$SCEN_DIR/$name.err" | head -n1)"
  rc=0
  python3 "$INTEROP_ROOT/tests/interop/lib/nfsbench_v4_check.py" "$SCEN_DIR/$name.out" vers="$v" proto=tcp \
    connections=1 bytes=$((2 * SIZE)) > "$SCEN_DIR/$name.check" || rc=$?
  cat "$SCEN_DIR/$name.check"
  [ $rc = 0 ] || fail "NFSv$v study job against Ganesha: $(sed -n 's/^BAD: //p' "$SCEN_DIR/$name.check")"
  ganesha_alive "after the NFSv$v run"

  step "NFSv$v: Ganesha's side, $EXPORT_DIR"
  ls -l "$EXPORT_DIR"
  local f n=0
  for f in "$EXPORT_DIR"/*.[01].0; do
    [ "$(stat -c %s "$f")" = $SIZE ] || fail "$f has $(stat -c %s "$f") bytes on Ganesha's side, want $SIZE"
    n=$((n + 1))
  done
  [ $n = 8 ] || fail "Ganesha's export holds $n job files after the NFSv$v run, want 8"
  # nfsbench's verify units (crates/bench/src/verify.rs): magic "nfsb", u32 length, u64 offset, big-endian
  python3 - "$EXPORT_DIR"/rand-write-4k.[01].0 <<'PY' || fail "NFSv$v: the random-write files on Ganesha's side do not hold nfsbench's verify units in place"
import random, struct, sys
for path in sys.argv[1:]:
    f = open(path, "rb")
    n = (4 << 20) // 4096
    for u in [0, n - 1] + random.Random(7).sample(range(1, n - 1), 62):
        f.seek(u * 4096)
        magic, length, where = struct.unpack(">4sIQ", f.read(16))
        if magic != b"nfsb" or length != 4096 or where != u * 4096:
            print("%s unit at %d: magic %r length %d offset %d" % (path, u * 4096, magic, length, where)); sys.exit(1)
print("64 sampled 4 KiB units per random-write file: nfsbench headers with their own offsets")
PY
  v4_capture_check "$pcap" "$NFS_PORT" "${v#4.}" "v$v"
  local tp; tp=$(sed -n 's/^  \(rand-read-4k\) .*read [0-9.]* MiB\/s \([0-9]*\) IOPS.*/\2/p' "$SCEN_DIR/$name.check")
  ganesha_alive "after the capture checks"
  must 40 "lab/peers/ganesha.sh stop" "$GANESHA" stop
  cp "$GANESHA_STATE/ganesha.log" "$SCEN_DIR/ganesha-v$v.log" 2>/dev/null || true
  parts+=("v$v: job ${secs} s (4k randread ${tp} IOPS), capture ${CAPTURE_LINE#*: }")
}

run_version 4.1
run_version 4.2
summary "Ganesha $VERSION, study job + verify=crc32c to completion: ${parts[0]}; ${parts[1]}"
