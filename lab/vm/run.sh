#!/bin/bash
# lab/vm/run.sh — run one command inside a throwaway Linux VM that has kernel NFS and Soft-RoCE.
#
#   lab/vm/run.sh [-m MEM] [-c CPUS] [-t SECS] [-w DIR]... [-e NAME=VALUE]... [-v] -- CMD [ARGS...]
#
# Boots Debian's own kernel under QEMU with software emulation (TCG: these machines have no KVM and no
# NIC is given to the guest), runs CMD as root in the caller's working directory, prints CMD's output
# (stdout and stderr merged) and exits with CMD's exit status.
#
# The guest's root filesystem is the host's / shared read-only over virtio-9p with a tmpfs overlay on
# top: every program installed on the host (lab/vm/install-deps.sh) and every file of this checkout,
# including freshly built binaries, is there at the same path; writes are discarded at power-off.
#
#   -m MEM     guest memory (default 2G)           -c CPUS  virtual CPUs (default 2)
#   -t SECS    wall-clock limit for the whole VM (default 540)
#   -w DIR     share host DIR read-write at the same path (repeatable): how results get out
#   -e N=V     set environment variable N=V for CMD (repeatable)
#   -v         print the whole guest kernel log to stderr afterwards
#
# Exit status: CMD's status; 125 when the VM died or timed out before CMD finished (then, and whenever
# CMD fails, the tail of the guest's kernel log is printed to stderr).
#
# The first run downloads Debian's kernel package with `apt-get download` (no install) and unpacks it
# under $NFSBENCH_VM_CACHE (default /var/tmp/nfsbench-vm); the initramfs is built once per kernel and
# per version of boot/init. Set NFSBENCH_VM_KERNEL=linux-image-<version>-amd64 to pin a kernel package
# (default: the one linux-image-amd64 depends on).
#
# TCG is ~50x slower than hardware: use the lab for correctness and wire captures, never for performance.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${NFSBENCH_VM_CACHE:-/var/tmp/nfsbench-vm}

usage() { awk 'NR > 2 && !/^#/ {exit} NR > 2 {sub(/^# ?/, ""); print}' "$0" >&2; exit 2; }

MEM=2G CPUS=2 TMO=540 VERBOSE=0 RWDIRS=() ENVS=()
while getopts m:c:t:w:e:vh o; do
  case $o in
    m) MEM=$OPTARG ;;
    c) CPUS=$OPTARG ;;
    t) TMO=$OPTARG ;;
    w) [ -d "$OPTARG" ] || { echo "run.sh: -w $OPTARG: not a directory" >&2; exit 2; }
       RWDIRS+=("$(realpath "$OPTARG")") ;;
    e) [[ $OPTARG == [A-Za-z_]*=* ]] || { echo "run.sh: -e wants NAME=VALUE" >&2; exit 2; }
       ENVS+=("$OPTARG") ;;
    v) VERBOSE=1 ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
for d in "${RWDIRS[@]}"; do
  [[ $d != *[[:space:]]* ]] || { echo "run.sh: -w paths must not contain blanks: $d" >&2; exit 2; }
done

mkdir -p "$CACHE"

# --- the kernel: Debian's package, downloaded and unpacked once (never installed on the host) --------
fetch_kernel() {
  local pkg=${NFSBENCH_VM_KERNEL:-}
  resolve() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}'; }
  if [ -z "$pkg" ]; then
    pkg=$(resolve)
    [ -n "$pkg" ] || { apt-get update -qq >&2; pkg=$(resolve); }
    [ -n "$pkg" ] || { echo "run.sh: cannot resolve linux-image-amd64 with apt-cache" >&2; return 1; }
  fi
  KROOT=$CACHE/$pkg
  if ! ls "$KROOT"/boot/vmlinuz-* >/dev/null 2>&1; then
    echo "run.sh: fetching $pkg (once; cached in $CACHE)" >&2
    local tmp; tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
    # The sandbox user _apt cannot write here; root downloading is fine for a file we only unpack.
    (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2) || { rm -rf "$tmp"; return 1; }
    rm -rf "$KROOT.part" && dpkg -x "$tmp"/"$pkg"_*.deb "$KROOT.part" && mv "$KROOT.part" "$KROOT"
    rm -rf "$tmp"
  fi
  KVER=$(ls "$KROOT/lib/modules" | head -n1)
  MODDIR=$KROOT/lib/modules/$KVER
  [ -f "$MODDIR/modules.dep" ] || depmod -b "$KROOT" "$KVER"   # the package's postinst would do this
}

# --- the initramfs: busybox + the modules needed to reach the 9p root, + boot/init ------------------
build_initrd() {
  local key; key=$(cat "$here/boot/init" | sha256sum | cut -c1-12)
  INITRD=$CACHE/initrd-$KVER-$key.cpio.gz
  [ -f "$INITRD" ] && return 0
  local t; t=$(mktemp -d "$CACHE/initrd.XXXXXX")
  mkdir -p "$t"/{bin,mods,proc,sys,dev,lower,rw,newroot}
  cp /bin/busybox "$t/bin/busybox"            # busybox-static: the initramfs has no libc
  for m in virtio_pci 9pnet_virtio 9p overlay; do
    modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" {print $2}'
  done | awk '!seen[$0]++' | while read -r f; do
    cp "$f" "$t/mods/" && basename "$f" >> "$t/mods/order"
  done
  install -m 755 "$here/boot/init" "$t/init"
  (cd "$t" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD.tmp" && mv "$INITRD.tmp" "$INITRD"
  rm -rf "$t"
}

# Concurrent runs share the cache: fetch and build under a lock.
exec 9> "$CACHE/.lock"
flock 9
fetch_kernel
build_initrd
flock -u 9
exec 9>&-

# --- the run: a control directory shared with the guest -----------------------------------------
W=$(mktemp -d "$CACHE/run.XXXXXX")
QPID=
cleanup() { [ -n "$QPID" ] && kill "$QPID" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

printf '%q ' "$@" > "$W/cmd"
pwd > "$W/cwd"
printf '%s\n' "${RWDIRS[@]}" > "$W/rwdirs"
for e in "${ENVS[@]}"; do printf 'export %q\n' "$e"; done > "$W/env"
cp "$here/boot/stage2.sh" "$W/stage2.sh"

p9=security_model=none,multidevs=remap
shares=(-virtfs "local,path=/,mount_tag=hostroot,$p9,readonly=on"
        -virtfs "local,path=$W,mount_tag=ctl,$p9")
i=0
for d in "${RWDIRS[@]}"; do shares+=(-virtfs "local,path=$d,mount_tag=rw$i,$p9"); i=$((i + 1)); done

# ttyS0 carries CMD's output to our stdout; ttyS1 is the kernel console, kept in a file.
timeout -k 5 "$TMO" qemu-system-x86_64 \
  -accel tcg,thread=multi -cpu max -smp "$CPUS" -m "$MEM" \
  -nodefaults -no-reboot -display none -monitor none -nic none \
  -serial stdio -serial "file:$W/console.log" \
  -kernel "$KROOT/boot/vmlinuz-$KVER" -initrd "$INITRD" \
  -append "console=ttyS1 loglevel=7 panic=-1 nfsb.kver=$KVER nfsb.moddir=$MODDIR" \
  "${shares[@]}" </dev/null &
QPID=$!
wait "$QPID" && qrc=0 || qrc=$?
QPID=

guest_log_tail() {
  echo "---- guest kernel log (last 40 lines) ----" >&2
  tail -n 40 "$W/console.log" >&2 2>/dev/null || true
}
[ "$VERBOSE" = 1 ] && { echo "---- guest kernel log ----" >&2; cat "$W/console.log" >&2 || true; }

if [ -s "$W/rc" ]; then
  rc=$(cat "$W/rc")
  [ "$rc" = 0 ] || { [ "$VERBOSE" = 1 ] || guest_log_tail; }
  exit "$rc"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
  echo "run.sh: the VM timed out after ${TMO}s" >&2
else
  echo "run.sh: the VM ended without a result (qemu exit status $qrc)" >&2
fi
[ "$VERBOSE" = 1 ] || guest_log_tail
exit 125
