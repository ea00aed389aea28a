#!/bin/bash
# lab/peers/fio-nfs.sh — builds (once) a fio with `ioengine=nfs` (libnfs) and prints its path on stdout.
#
# Debian's own fio binary has no nfs engine, so this rebuilds Debian's fio source package against
# libnfs-dev, with lab/peers/fio-nfs-drain.patch on top (the 3.33 engine ignores getevents' `min` and
# tears down the libnfs context with RPCs in flight at job end; the patch drains them).
#
# Idempotent: when the cached binary exists, was built from the same patch, and lists the nfs engine,
# it only prints the path. Everything except that path goes to stderr; the build log is kept next to
# the binary. Needs root (or sudo) for apt. On a fresh 2-core machine ~20–30 s (apt, apt-get source,
# configure, make -j2); cached ~0.01 s.
#
#   usage: FIO=$(lab/peers/fio-nfs.sh)      # then: $FIO --ioengine=nfs --nfs_url=nfs://127.0.0.1/export?version=3 ...
#   env:   NFSBENCH_PEERS_DIR  cache root (default /var/tmp/nfsbench-peers); binary at $NFSBENCH_PEERS_DIR/fio/fio
#          FIO_NFS_REBUILD=1   rebuild even if the cached binary looks current
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patch_file=$here/fio-nfs-drain.patch
root=${NFSBENCH_PEERS_DIR:-/var/tmp/nfsbench-peers}/fio
out=$root/fio
stamp=$root/fio.stamp
log=$root/build.log
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

say() { echo "fio-nfs: $*" >&2; }
die() { say "error: $*"; exit 1; }

has_nfs_engine() { # the engine list printed by `fio --enghelp` must contain a line "nfs"
  [ -x "$1" ] && "$1" --enghelp 2>/dev/null | grep -qx '[[:space:]]*nfs'
}

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9   # one build at a time; a second caller waits, then takes the fast path below

want_stamp="patch=$(sha256sum "$patch_file" | cut -d' ' -f1) configure=--enable-libnfs,--disable-native"
if [ "${FIO_NFS_REBUILD:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ] \
   && has_nfs_engine "$out"; then
  echo "$out"
  exit 0
fi

# --- 1. a deb-src entry, derived from the machine's own Debian sources (only if none exists) -----------
have_deb_src() {
  grep -Eqs '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
}
need_update=0
if ! have_deb_src; then
  src=/etc/apt/sources.list.d/nfsbench-deb-src
  tmp=$(mktemp)
  # deb822 files: copy every stanza that is a `deb` entry for a Debian archive, as `Types: deb-src`.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /Types:[^\n]*deb/ && /URIs:[^\n]*debian/ { sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f"
  done > "$tmp"
  if [ -s "$tmp" ]; then
    $SUDO install -m 644 "$tmp" "$src.sources"
    say "added $src.sources (deb-src copy of the Debian entries)"
  else
    # one-line format: `deb [opts] URI suite comps` → `deb-src ...`, Debian archives only.
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | sed -n -E 's/^[[:space:]]*deb([[:space:]].*debian.*)$/deb-src\1/p' > "$tmp"
    [ -s "$tmp" ] || { rm -f "$tmp"; die "no Debian entry in the apt sources to derive a deb-src from"; }
    $SUDO install -m 644 "$tmp" "$src.list"
    say "added $src.list (deb-src copy of the Debian entries)"
  fi
  rm -f "$tmp"
  need_update=1
fi

# --- 2. build dependencies (a minimal set, not `apt-get build-dep fio`, which pulls ceph, gluster, gtk…) --
pkgs=(build-essential dpkg-dev patch pkg-config libnfs-dev libaio-dev zlib1g-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ]; then
  say "apt-get update${missing[*]:+; installing ${missing[*]}}"
  $SUDO apt-get update -qq >/dev/null
  [ ${#missing[@]} -eq 0 ] || $SUDO env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- 3. source, patch, configure, build ------------------------------------------------------------
build=$root/build
rm -rf "$build"; mkdir -p "$build"
: > "$log"
say "apt-get source fio (log: $log)"
# Sandbox::User=root: as root, apt would otherwise warn that _apt cannot write the download directory.
(cd "$build" && apt-get source -q -o APT::Sandbox::User=root fio) >>"$log" 2>&1 \
  || { tail -20 "$log" >&2; die "apt-get source fio failed"; }
srcdir=$(find "$build" -mindepth 1 -maxdepth 1 -type d -name 'fio-*' | head -1)
[ -n "$srcdir" ] || die "no fio-* directory after apt-get source"
say "source: $(basename "$srcdir") (Debian $(dpkg-parsechangelog -l "$srcdir/debian/changelog" -S Version 2>/dev/null || echo '?'))"

patch -d "$srcdir" -p1 --forward < "$patch_file" >>"$log" 2>&1 \
  || { tail -20 "$log" >&2; die "fio-nfs-drain.patch does not apply to $(basename "$srcdir")"; }

(cd "$srcdir" && ./configure --enable-libnfs --disable-native) >>"$log" 2>&1 \
  || { tail -30 "$log" >&2; die "configure failed"; }
grep -E '^NFS engine[[:space:]]+yes$' "$log" >&2 || die "configure did not enable the NFS engine (libnfs-dev/pkg-config?)"

say "building with make -j$(nproc)"
make -C "$srcdir" -j"$(nproc)" fio >>"$log" 2>&1 || { tail -30 "$log" >&2; die "make failed"; }

install -m 755 "$srcdir/fio" "$out.new"
has_nfs_engine "$out.new" || die "built fio does not list the nfs engine"
mv -f "$out.new" "$out"
echo "$want_stamp" > "$stamp"
rm -rf "$build"   # ~100 MB of objects; the log stays
say "$("$out" --version) with ioengine=nfs ready"
echo "$out"
