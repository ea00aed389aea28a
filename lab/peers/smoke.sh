#!/bin/bash
# lab/peers/smoke.sh — end-to-end check of the real-peer tooling: Ganesha up, libnfs-utils and fio's nfs
# engine against it, data checked, Ganesha down. Exits non-zero on any failure.
#
#   1. fio-nfs.sh            (builds fio with ioengine=nfs on first use, ~30 s + apt)
#   2. ganesha.sh start      (fresh tmpfs export)
#   3. nfs-cp round trip     local → v3 write → compare on the server's tmpfs → v3 and v4 reads → compare;
#                            nfs-ls over v3 and v4 (v4 writes are not tried: Debian's libnfs 4.0 fails them)
#   4. fio pre-create        1 MiB sequential write of the target file over NFSv3 with verify=crc32c
#                            (fio's nfs engine only creates files for `rw=write`), read back and verified
#   5. fio 4 KiB randread    iodepth 32, 5 s, on that file; no errors, every issued I/O completed
#                            (the drain patch), file unchanged; prints fio's report and a summary line
#   6. ganesha.sh stop       (also on failure, from the EXIT trap)
#
# env: SMOKE_FILE_SIZE (default 1g, the fio target), SMOKE_RUNTIME (default 5, seconds), and
#      GANESHA_STATE / GANESHA_NFS_PORT / GANESHA_MNT_PORT as for ganesha.sh. Needs root.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
size=${SMOKE_FILE_SIZE:-1g}
runtime=${SMOKE_RUNTIME:-5}
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

step() { echo "== smoke: $*"; }
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }

# libnfs-utils for nfs-ls/nfs-cp, python3 to read fio's JSON
missing=()
for p in libnfs-utils python3; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

step "fio with the nfs engine"
t0=$SECONDS
FIO=$("$here/fio-nfs.sh") || fail "fio-nfs.sh"
echo "$FIO ($("$FIO" --version), $((SECONDS - t0)) s)"

"$here/ganesha.sh" status >/dev/null 2>&1 && fail "a Ganesha is already running (ganesha.sh status); stop it first"
work=$(mktemp -d /tmp/nfsbench-smoke.XXXXXX)
started=0
cleanup() {
  local rc=$?
  [ $started = 1 ] && { "$here/ganesha.sh" stop || rc=1; }
  rm -rf "$work"
  [ $rc = 0 ] && echo "== smoke: PASS" || echo "== smoke: FAILED (rc=$rc)" >&2
  exit $rc
}
trap cleanup EXIT

step "ganesha start"
t0=$SECONDS
started=1
"$here/ganesha.sh" start >/dev/null
echo "up in $((SECONDS - t0)) s: $(ganesha.nfsd -v 2>/dev/null | tr -d '\n')"
export_dir=$("$here/ganesha.sh" status | sed -n 's/^running .* export=//p')
[ -d "$export_dir" ] || fail "no export dir from ganesha.sh status"
v3=$("$here/ganesha.sh" url v3)
v4=$("$here/ganesha.sh" url v4)
at() { echo "${1%%\?*}/$2?${1#*\?}"; }   # at URL NAME: the URL of file NAME in the export

step "nfs-cp / nfs-ls round trip"
head -c 64M /dev/urandom > "$work/in.bin"
nfs-cp "$work/in.bin" "$(at "$v3" smoke.bin)" >/dev/null || fail "nfs-cp write (v3)"
cmp "$work/in.bin" "$export_dir/smoke.bin" || fail "server copy differs from what nfs-cp wrote"
nfs-cp "$(at "$v3" smoke.bin)" "$work/back3.bin" >/dev/null || fail "nfs-cp read (v3)"
cmp "$work/in.bin" "$work/back3.bin" || fail "v3 read-back differs"
nfs-cp "$(at "$v4" smoke.bin)" "$work/back4.bin" >/dev/null || fail "nfs-cp read (v4)"
cmp "$work/in.bin" "$work/back4.bin" || fail "v4 read-back differs"
for u in "$v3" "$v4"; do
  nfs-ls "$u" | awk '$NF == "smoke.bin" && $(NF-1) == 67108864 { ok = 1 } END { exit !ok }' \
    || fail "nfs-ls $u does not list smoke.bin with 64 MiB"
done
echo "64 MiB: v3 write, v3 read, v4 read identical; nfs-ls v3/v4 ok"

# fio_check JSON_FILE BS: every issued I/O completed (total_ios == bytes/bs), no errors; prints a summary
fio_check() { python3 "$here/fio_check.py" "$1" "$2"; }

step "fio: pre-create $size with 1 MiB writes over NFSv3, verify=crc32c"
"$FIO" --name=precreate --ioengine=nfs --nfs_url="$v3" --filename=fio.bin --size="$size" \
  --rw=write --bs=1m --iodepth=8 --verify=crc32c --do_verify=1 --verify_state_save=0 \
  --output-format=json --output="$work/pre.json" 2>"$work/pre.err" || { cat "$work/pre.err" >&2; fail "fio pre-create"; }
grep -q . "$work/pre.err" && { cat "$work/pre.err" >&2; fail "fio pre-create wrote to stderr"; }
fio_check "$work/pre.json" $((1 << 20)) || fail "fio pre-create results"
want=$(numfmt --from=iec "${size^^}")
[ "$(stat -c %s "$export_dir/fio.bin")" = "$want" ] || fail "fio.bin on the server is not $want bytes"
before=$(stat -c '%s %Y' "$export_dir/fio.bin")

step "fio: 4 KiB randread, iodepth 32, ${runtime} s, NFSv3 (machine: $(nproc) cores, loopback, client and server share them)"
"$FIO" --name=randread --ioengine=nfs --nfs_url="$v3" --filename=fio.bin --size="$size" \
  --rw=randread --bs=4k --iodepth=32 --time_based --runtime="$runtime" \
  --output-format=normal,json --output="$work/rr.out" 2>"$work/rr.err" || { cat "$work/rr.err" >&2; fail "fio randread"; }
sed '/^{/,/^}/d' "$work/rr.out"   # fio's normal report (the JSON block is parsed below)
grep -q . "$work/rr.err" && { cat "$work/rr.err" >&2; fail "fio randread wrote to stderr"; }
fio_check "$work/rr.out" 4096 || fail "fio randread results"
[ "$(stat -c '%s %Y' "$export_dir/fio.bin")" = "$before" ] || fail "fio.bin changed during a read-only job"

step "ganesha stop"
started=0
"$here/ganesha.sh" stop
