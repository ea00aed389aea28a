#!/bin/bash
# interop-timeout: 300
# libnfs-tools — Debian's libnfs-utils (a userspace NFSv3 client) against `nfsbench serve` on the host's
# loopback: nfs-ls of the empty export, nfs-cp of a 64 MiB file in and out, nfs-cat of a small file,
# nfs-ls listing both with their sizes; checksums compared. URL form:
#   nfs://127.0.0.1/export?version=3&nfsport=P&mountport=P
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

need_debs libnfs-utils
work=$SCEN_DIR/work
mkdir -p "$work"
cleanup() { local rc=$?; set +e; stop_server || { [ $rc = 0 ] && { _reason reason "the server did not shut down cleanly"; rc=1; }; }; rm -rf "$work"; exit $rc; }
trap cleanup EXIT

start_server "$SCEN_DIR"
P=$SERVER_PORT
log "libnfs-utils $(dpkg-query -W -f '${Version}' libnfs-utils)"

step "nfs-ls of the empty export"
out=$(tmo 30 nfs-ls "$(nfs_url "$P")" 2>&1) || { echo "$out"; fail "nfs-ls of the empty export failed"; }
[ -z "$(echo "$out" | grep -v '^\.\{1,2\}$' | awk 'NF')" ] || { echo "$out"; fail "nfs-ls: the fresh export is not empty"; }

step "nfs-cp in and out, 64 MiB"
head -c 64M /dev/urandom > "$work/in.bin"
want=$(sha "$work/in.bin")
t0=$(now_ns)
must 120 "nfs-cp local -> NFS" nfs-cp "$work/in.bin" "$(nfs_url "$P" in.bin)"
w=$(mib_per_s 67108864 "$t0")
t0=$(now_ns)
must 120 "nfs-cp NFS -> local" nfs-cp "$(nfs_url "$P" in.bin)" "$work/out.bin"
r=$(mib_per_s 67108864 "$t0")
got=$(sha "$work/out.bin")
[ "$got" = "$want" ] || fail "nfs-cp round trip: sha256 $got read back, $want written ($(stat -c %s "$work/out.bin") bytes)"
log "64 MiB: write $w MiB/s, read $r MiB/s, sha256 $want"

step "nfs-cat of a small file"
printf 'nfsbench interop: a small file\n' > "$work/small.txt"
must 30 "nfs-cp small file" nfs-cp "$work/small.txt" "$(nfs_url "$P" small.txt)"
got=$(tmo 30 nfs-cat "$(nfs_url "$P" small.txt)") || fail "nfs-cat failed"
[ "$got" = "$(cat "$work/small.txt")" ] || fail "nfs-cat printed '$got'"

step "nfs-ls lists both with their sizes"
out=$(tmo 30 nfs-ls "$(nfs_url "$P")" 2>&1) || { echo "$out"; fail "nfs-ls failed"; }
echo "$out"
echo "$out" | awk '$NF == "in.bin" && $(NF-1) == 67108864 {ok = 1} END {exit !ok}' || fail "nfs-ls does not list in.bin with 67108864 bytes"
echo "$out" | awk -v n="$(stat -c %s "$work/small.txt")" '$NF == "small.txt" && $(NF-1) == n {ok = 1} END {exit !ok}' \
  || fail "nfs-ls does not list small.txt with its size"

check_server_alive
server_log_check
stop_server || fail "the server did not shut down cleanly"
sed -n '/^program /,$p' "$SERVER_LOG"
summary "64 MiB nfs-cp: write $w MiB/s, read $r MiB/s, sha256 equal"
