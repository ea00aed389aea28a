#!/bin/bash
# interop-timeout: 420
# fio-nfs-engine — fio's ioengine=nfs (libnfs; built by lab/peers/fio-nfs.sh with its drain patch)
# against `nfsbench serve` on the host's loopback:
#   1. sequential write of 256 MiB, bs 1 MiB, iodepth 8, verify=crc32c (written, then read back and checked)
#   2. a separate read job over the same file, verify=crc32c (checks the headers the write job stored)
#   3. 4 KiB random read, iodepth 32, 5 s
# Each job: exit status 0, nothing on stderr, fio error 0, every issued I/O completed, no short I/Os.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

step "fio with the nfs engine (lab/peers/fio-nfs.sh)"
FIO=$(tmo 900 "$INTEROP_ROOT/lab/peers/fio-nfs.sh") || fail "lab/peers/fio-nfs.sh could not provide fio with ioengine=nfs"
log "$FIO: $("$FIO" --version)"
need_debs python3
cleanup() { local rc=$?; set +e; stop_server || { [ $rc = 0 ] && { _reason reason "the server did not shut down cleanly"; rc=1; }; }; exit $rc; }
trap cleanup EXIT

start_server "$SCEN_DIR"
URL=$(nfs_url "$SERVER_PORT")
COMMON=(--name=interop --ioengine=nfs "--nfs_url=$URL" --filename=fio.bin --size=256m --verify_state_save=0)

# fio_job NAME BS SECS ARGS...: run one job; its JSON in $SCEN_DIR/NAME.json, checked by fio_check.py
fio_job() {
  local name=$1 bs=$2 secs=$3 rc=0; shift 3
  step "fio $name: $*"
  tmo "$secs" "$FIO" "${COMMON[@]}" "$@" --output-format=normal,json --output="$SCEN_DIR/$name.out" \
    2> "$SCEN_DIR/$name.err" || rc=$?
  sed '/^{/,/^}/d' "$SCEN_DIR/$name.out"
  if [ -s "$SCEN_DIR/$name.err" ]; then cat "$SCEN_DIR/$name.err"; fi
  [ $rc = 0 ] || fail "fio $name: exit status $rc$( [ $rc = 124 ] && echo " (timed out after ${secs} s)")$(head -c 300 "$SCEN_DIR/$name.err" | tr '\n' ' ' | sed 's/^/: /')"
  [ ! -s "$SCEN_DIR/$name.err" ] || fail "fio $name wrote to stderr: $(head -n1 "$SCEN_DIR/$name.err")"
  python3 "$INTEROP_ROOT/lab/peers/fio_check.py" "$SCEN_DIR/$name.out" "$bs" | tee "$SCEN_DIR/$name.summary" \
    || fail "fio $name: $(grep '^BAD' "$SCEN_DIR/$name.summary")"
  check_server_alive "after fio $name"
}

fio_job write-verify $((1 << 20)) 180 --rw=write --bs=1m --iodepth=8 --verify=crc32c --do_verify=1
fio_job read-verify $((1 << 20)) 180 --rw=read --bs=1m --iodepth=8 --verify=crc32c --do_verify=1
fio_job randread-4k 4096 60 --rw=randread --bs=4k --iodepth=32 --time_based --runtime=5

server_log_check
stop_server || fail "the server did not shut down cleanly"
sed -n '/^program /,$p' "$SERVER_LOG"
rr=$(grep -o 'IOPS=[0-9]*' "$SCEN_DIR/randread-4k.summary" | sed -n 1p)
wr=$(grep ': write ' "$SCEN_DIR/write-verify.summary" | grep -o 'BW=[0-9.]* MiB/s' | sed -n 1p)
summary "write+verify 256 MiB ${wr#BW=}, read+verify OK, 4 KiB randread qd32 ${rr} (loopback, shared 2 cores)"
