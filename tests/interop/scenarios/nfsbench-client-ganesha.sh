#!/bin/bash
# interop-timeout: 300
# nfsbench-client-ganesha — nfsbench's own NFSv3 client against NFS-Ganesha 4.3 (FSAL_VFS on a fresh
# tmpfs, lab/peers/ganesha.sh on free ports of its own, stopped at the end even on failure), one file
# (nfsbench-ganesha.bin, 64 MiB), -o vers=3,proto=tcp,port=NFS,mountport=MNT:
#   1. sequential write, bs 1 MiB, iodepth 8, verify=crc32c with 4 KiB verify units (written, then read
#      back and checked by the same job)
#   2. random read, bs 4 KiB, iodepth 32, verify=crc32c: checks what job 1 wrote
#   3. mixed random read/write (randrw), bs 4 KiB, iodepth 32, verify=crc32c
#   each: exit status 0, JSON error 0, nfsbench_verify_errors 0, no short I/O, the expected byte counts;
#   4. from Ganesha's side (its export is a local tmpfs): the file exists with exactly 64 MiB, and sampled
#      4 KiB units carry nfsbench's verify header naming their own offset (the data landed in place);
#   5. one byte flipped in the file on Ganesha's side: a verifying read must exit 1 with exactly one
#      verify error, at that byte's unit (so the clean verdicts above mean something).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

[ "$(id -u)" = 0 ] || skip "needs root: lab/peers/ganesha.sh start (FSAL_VFS uses open_by_handle_at)"
need_debs python3 iproute2
GANESHA=$INTEROP_ROOT/lab/peers/ganesha.sh
export GANESHA_STATE=/var/tmp/nfsbench-peers/ganesha-interop GANESHA_TMPFS_SIZE=256m
FILE=nfsbench-ganesha.bin
SIZE=$((64 << 20))

cleanup() {
  local rc=$?; set +e
  tmo 40 "$GANESHA" stop || { [ $rc = 0 ] && { _reason reason "lab/peers/ganesha.sh stop failed"; rc=1; }; }
  cp "$GANESHA_STATE/ganesha.log" "$SCEN_DIR/ganesha.log" 2>/dev/null
  exit $rc
}
trap cleanup EXIT
trap 'exit 143' TERM INT   # so that the EXIT trap stops Ganesha when the runner times the scenario out

# Two free ports (bound together, then released for Ganesha).
read -r NFS_PORT MNT_PORT < <(python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])') || fail "no free TCP ports"
export GANESHA_NFS_PORT=$NFS_PORT GANESHA_MNT_PORT=$MNT_PORT
if pgrep -x ganesha.nfsd > /dev/null; then
  log "note: another ganesha.nfsd is running ($(pgrep -x ganesha.nfsd | paste -sd' ')): ours re-registers NFS/MOUNT in rpcbind (its clients with explicit ports are unaffected)"
fi
# A Ganesha of this scenario's state left by a killed earlier run: stop it (and unmount its tmpfs) first.
[ ! -f "$GANESHA_STATE/ganesha.env" ] || must 40 "lab/peers/ganesha.sh stop (a leftover)" "$GANESHA" stop
step "lab/peers/ganesha.sh start (NFS port $NFS_PORT, MOUNT port $MNT_PORT, fresh tmpfs)"
must 120 "lab/peers/ganesha.sh start" "$GANESHA" start
"$GANESHA" status
EXPORT_DIR=$("$GANESHA" status | sed -n 's/.* export=\(.*\)$/\1/p')
if [ ! -d "$EXPORT_DIR" ] || [ "$(stat -f -c %T "$EXPORT_DIR")" != tmpfs ]; then
  fail "Ganesha's export directory '$EXPORT_DIR' is not a tmpfs"
fi
VERSION=$(ganesha.nfsd -v 2>/dev/null | sed -n 's/.*Release = V\{0,1\}\([^ ]*\).*/\1/p' | head -n1)
OPTS="vers=3,proto=tcp,port=$NFS_PORT,mountport=$MNT_PORT"

ganesha_alive() {
  "$GANESHA" status > /dev/null 2>&1 && return 0
  tail -n 30 "$GANESHA_STATE/ganesha.log" >&2 || true
  fail "Ganesha is no longer running ($1)"
}

# job NAME EXPECT_STATUS ARGS...: one `nfsbench run` against Ganesha, JSON in $SCEN_DIR/NAME.json
job() {
  local name=$1 want=$2 rc=0; shift 2
  step "nfsbench run --name=$name $*"
  tmo 120 "$NFSBENCH" run --name="$name" --filename=$FILE "$@" --target 127.0.0.1:/export -o "$OPTS" \
    --output-format=json --output "$SCEN_DIR/$name.json" 2> "$SCEN_DIR/$name.err" || rc=$?
  head -n 20 "$SCEN_DIR/$name.err"
  [ $rc = "$want" ] || fail "nfsbench run --name=$name against Ganesha: exit status $rc, want $want$([ $rc = 124 ] && echo " (timed out after 120 s)"): $(grep -v -e 'Laying out' -e '^nfsbench: note' "$SCEN_DIR/$name.err" | head -n1)"
  [ -s "$SCEN_DIR/$name.json" ] || fail "nfsbench run --name=$name wrote no JSON"
  ganesha_alive "after $name"
}
# clean NAME: error 0, no verify error, no short I/O; then "DIR=BYTES" expectations on io_bytes
clean() {
  local name=$1 kv d want got; shift
  python3 "$INTEROP_ROOT/tests/interop/lib/nfsbench_json.py" clean "$SCEN_DIR/$name.json" | tee "$SCEN_DIR/$name.clean" \
    || fail "$name against Ganesha: $(grep -m1 '^BAD' "$SCEN_DIR/$name.clean" | sed 's/^BAD: //')"
  for kv in "$@"; do
    d=${kv%%=*} want=${kv#*=}
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]["io_bytes"])' "$SCEN_DIR/$name.json" "$d")
    if [ "$want" = '>0' ]; then [ "$got" -gt 0 ] || fail "$name: no $d I/O"
    else [ "$got" = "$want" ] || fail "$name: $d io_bytes $got, want $want"; fi
  done
}

job seq-write 0 --rw=write --bs=1m --size=64m --iodepth=8 --verify=crc32c --verify_interval=4k
clean seq-write write=$SIZE read=$SIZE
job randread 0 --rw=randread --bs=4k --size=64m --iodepth=32 --verify=crc32c
clean randread read=$SIZE write=0
job randrw 0 --rw=randrw --bs=4k --size=64m --iodepth=32 --verify=crc32c
clean randrw 'read=>0' 'write=>0'

step "Ganesha's side: $EXPORT_DIR/$FILE"
ls -l "$EXPORT_DIR"
[ -f "$EXPORT_DIR/$FILE" ] || fail "$FILE is not in Ganesha's export directory $EXPORT_DIR"
got=$(stat -c %s "$EXPORT_DIR/$FILE")
[ "$got" = $SIZE ] || fail "$FILE on Ganesha's side has $got bytes, want $SIZE"
# nfsbench's verify units (crates/bench/src/verify.rs): magic "nfsb", u32 length, u64 file offset (big-endian)
python3 - "$EXPORT_DIR/$FILE" <<'EOF' || fail "$FILE on Ganesha's side does not hold nfsbench's verify units in place"
import random, struct, sys
f = open(sys.argv[1], "rb")
n = (64 << 20) // 4096
units = [0, 1, n - 1] + random.Random(7).sample(range(2, n - 1), 61)
for u in units:
    off = u * 4096
    f.seek(off); h = f.read(16)
    magic, length, where = struct.unpack(">4sIQ", h)
    if magic != b"nfsb" or length != 4096 or where != off:
        print("unit at %d: magic %r length %d offset %d" % (off, magic, length, where)); sys.exit(1)
print("%d sampled 4 KiB units: nfsbench headers with their own offsets" % len(units))
EOF

step "one byte flipped on Ganesha's side must fail verify at its unit"
FLIP=$((40 << 20 | 1234))
python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x5a]))' \
  "$EXPORT_DIR/$FILE" $FLIP
job corrupted 1 --rw=read --bs=1m --size=64m --iodepth=8 --verify=crc32c --verify_interval=4k
unit=$((FLIP / 4096 * 4096))
python3 - "$SCEN_DIR/corrupted.json" <<'EOF' || fail "a flipped byte: the JSON does not report exactly one verify error"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print("corrupted: error %d, nfsbench_verify_errors %d" % (j["error"], j["nfsbench_verify_errors"]))
sys.exit(0 if j["nfsbench_verify_errors"] == 1 and j["error"] != 0 else 1)
EOF
grep -q "offset $unit\b" "$SCEN_DIR/corrupted.err" || fail "a flipped byte at $FLIP: stderr does not name its verify unit at offset $unit"

ganesha_alive "at the end"
w=$(grep -o 'write [0-9]* MiB in [0-9]* I/Os [0-9]* MiB/s' "$SCEN_DIR/seq-write.clean" | awk '{print $(NF-1)}')
rr=$(grep -o '[0-9]* IOPS' "$SCEN_DIR/randread.clean" | head -n1)
summary "Ganesha $VERSION: 64 MiB seq write ${w} MiB/s, 4k randread ${rr}, randrw, all verify=crc32c clean, file 64 MiB with headers in place on Ganesha's tmpfs, a flipped byte caught at offset $unit"
