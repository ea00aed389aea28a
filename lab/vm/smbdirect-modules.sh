#!/bin/bash
# lab/vm/smbdirect-modules.sh — builds (once) the SMB client and server modules with SMB Direct (SMB3
# over RDMA) for the kernel that lab/vm/run.sh boots, and fetches a ksmbd-tools that works with it.
#
#   lab/vm/smbdirect-modules.sh        # prints the module directory on stdout
#
# The module directory, $NFSBENCH_VM_CACHE/smbdirect/<kernel version> (cache default
# /var/tmp/nfsbench-vm), holds:
#   cifs.ko, ksmbd.ko        fs/smb/client and fs/smb/server of the kernel's own Debian source, built
#                            out of tree against its headers with CONFIG_CIFS_SMB_DIRECT=y and
#                            CONFIG_SMB_SERVER_SMBDIRECT=y; everything else as Debian configured it;
#                            debug info stripped, unsigned
#   ksmbd-tools/usr/sbin/    ksmbd.mountd, ksmbd.adduser, ksmbd.addshare, ksmbd.control (>= 3.5.2)
#   BUILD-INFO               kernel, Debian upload, ksmbd-tools version, patches applied, recipe hash
# A second run finds BUILD-INFO matching and only prints the path. In the guest, lab/targets/smb-target.sh
# takes this directory (SMBDIRECT_MODULES=DIR or --modules DIR).
#
# Installs with apt when missing (host, root): linux-headers-<kver> and linux-source-<x.y>, both at the
# Debian upload of the image run.sh boots (`apt-get install pkg=version`), make, gcc, binutils and
# xz-utils for the build, and cifs-utils (mount.cifs, for the guest's client). About a minute.
#
# Facts this script encodes (found on Debian 12, kernel 6.1.0-56-amd64 = upload 6.1.192-2):
#  - The kernel is chosen exactly as run.sh does: NFSBENCH_VM_KERNEL=linux-image-<kver>, else what
#    linux-image-amd64 depends on. The image's Debian upload is read from the bzImage's version string
#    ("... Debian 6.1.192-2 (...)") when run.sh has cached it, else it is apt's candidate. Headers
#    (include/generated/package.h, LINUX_PACKAGE_ID) and linux-source-<x.y> must be that same upload:
#    the ABI name (6.1.0-56) alone stays the same across uploads.
#  - Debian builds neither CONFIG_CIFS_SMB_DIRECT nor CONFIG_SMB_SERVER_SMBDIRECT (6.1; bookworm-
#    backports and trixie 6.12 neither). Out of tree, `CONFIG_X=y` on make's command line adds the
#    object (smbdirect.o, transport_rdma.o) and KCFLAGS=-DCONFIG_X=1 turns on the #ifdefs that
#    autoconf.h does not have. The modules are unsigned: loading them taints the kernel (harmless).
#  - The headers package lacks scripts/asn1_compiler: it is compiled from the source's
#    scripts/asn1_compiler.c and the *.asn1.[ch] are generated beforehand (kbuild's pattern rule then
#    is not needed). ksmbd's vfs.c includes "../../internal.h" (fs/internal.h): copied beside smb/.
#  - ksmbd-tools 3.4.7 (Debian 12's) cannot serve any share to these kernels: since 6.1.85-1
#    (CVE-2024-26811, "ksmbd: validate payload size in ipc response") ksmbd expects a payload_sz field
#    in the share-config reply that ksmbd-tools added in 3.5.2 (commit 0ab2c10); with 3.4.7 the kernel
#    drops every reply and each tree connect, IPC$ included, fails with STATUS_BAD_NETWORK_NAME
#    (mount error(2)). bookworm-backports has 3.5.2; it is downloaded with a private apt state
#    (the host's sources and installed ksmbd-tools are left alone) and unpacked here.
#  - Debian 6.1.192-2's ksmbd (stock module included) oopses on the first SMB2 CREATE that gets no
#    oplock (NULL pointer dereference at opinfo_put+0x5, CR2 0x44, from smb2_open; the worker dies, the
#    client times out after 180 s): smb2_open() calls opinfo_put(opinfo) with opinfo NULL and this
#    6.1 backport's opinfo_put() lacks upstream's `if (!opinfo) return;`. The build adds that check
#    (only when it is missing), so the built ksmbd.ko is the one to use over TCP as well.
#  - 6.1's cifs SMB Direct client sizes its queue pair and CQs exactly to its credits (255 receives,
#    all posted), so at teardown ib_drain_qp() cannot post its marker: "failed to drain recv queue:
#    -12" (WARNING in __ib_drain_rq from smbd_destroy, printed once per boot) and, after a failed mount
#    or a multichannel unmount, cifsd then waits forever in smbd_destroy (D state, cifs cannot be
#    unloaded). Upstream (since late 2025) reserves one more WR for the drain; the build does the same: +1 on
#    max_send_wr/max_recv_wr and on both CQs.
set -euo pipefail

CACHE=${NFSBENCH_VM_CACHE:-/var/tmp/nfsbench-vm}
KSMBD_TOOLS_MIN=3.5.2

die() { echo "smbdirect-modules: $*" >&2; exit 1; }
say() { echo "smbdirect-modules: $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (apt-get install)"
mkdir -p "$CACHE"

# --- which kernel: the same resolution as run.sh's fetch_kernel -------------------------------------
resolve() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}'; }
PKG=${NFSBENCH_VM_KERNEL:-}
if [ -z "$PKG" ]; then
  PKG=$(resolve)
  [ -n "$PKG" ] || { apt-get update -qq >&2; PKG=$(resolve); }
  [ -n "$PKG" ] || die "cannot resolve linux-image-amd64 with apt-cache"
fi
KVER=${PKG#linux-image-}
OUT=$CACHE/smbdirect/$KVER

# bzimage_version FILE: the version string in a bzImage's setup header (pointer at 0x20E, +0x200).
bzimage_version() {
  local off
  off=$(od -An -tu2 -j $((0x20E)) -N 2 "$1" | tr -d ' ')
  dd if="$1" bs=1 skip=$((off + 0x200)) count=256 2>/dev/null | tr '\0' '\n' | head -n1
}
VMLINUZ=$CACHE/$PKG/boot/vmlinuz-$KVER
if [ -f "$VMLINUZ" ]; then
  UPLOAD=$(bzimage_version "$VMLINUZ" | sed -n 's/.* Debian \([^ ]*\) .*/\1/p')
  [ -n "$UPLOAD" ] || die "cannot read the Debian upload from $VMLINUZ"
  FROM="cached image $VMLINUZ"
else
  UPLOAD=$(apt-cache policy "$PKG" | awk '/Candidate:/ {print $2}')
  [ -n "$UPLOAD" ] && [ "$UPLOAD" != "(none)" ] || die "apt knows no $PKG"
  FROM="apt candidate of $PKG (run.sh has not cached it yet)"
fi
MAJMIN=$(echo "$KVER" | cut -d. -f1,2)
HDRPKG=linux-headers-$KVER SRCPKG=linux-source-$MAJMIN
HDR=/usr/src/$HDRPKG SRCTAR=/usr/src/$SRCPKG.tar.xz
RECIPE=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-12)

done_already() {
  [ -f "$OUT/BUILD-INFO" ] && [ -f "$OUT/cifs.ko" ] && [ -f "$OUT/ksmbd.ko" ] &&
    [ -x "$OUT/ksmbd-tools/usr/sbin/ksmbd.mountd" ] &&
    grep -qx "upload=$UPLOAD" "$OUT/BUILD-INFO" && grep -qx "recipe=$RECIPE" "$OUT/BUILD-INFO"
}
if done_already; then echo "$OUT"; exit 0; fi

exec 9> "$CACHE/.smbdirect.lock"
flock 9
if done_already; then echo "$OUT"; exit 0; fi
say "building for $KVER (Debian $UPLOAD, from the $FROM) into $OUT"

# --- headers and source at exactly that upload ------------------------------------------------------
installed() { [ "$(dpkg-query -W -f '${db:Status-Abbrev} ${Version}' "$1" 2>/dev/null)" = "ii  $2" ]; }
want=()
installed "$HDRPKG" "$UPLOAD" || want+=("$HDRPKG=$UPLOAD")
installed "$SRCPKG" "$UPLOAD" || want+=("$SRCPKG=$UPLOAD")
for t in make:make gcc:gcc strip:binutils xz:xz-utils mount.cifs:cifs-utils; do
  command -v "${t%%:*}" >/dev/null || want+=("${t#*:}")
done
if [ ${#want[@]} -gt 0 ]; then
  say "apt-get install ${want[*]}"
  apt-cache show "${want[0]}" >/dev/null 2>&1 || apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" >&2 ||
    die "cannot install ${want[*]} (is Debian upload $UPLOAD still in the archive? else remove $CACHE/$PKG so that run.sh fetches the current image)"
fi
grep -q "\"[^\"]*Debian $UPLOAD\"" "$HDR/include/generated/package.h" ||
  die "$HDR is not Debian $UPLOAD: $(cat "$HDR/include/generated/package.h")"
[ -f "$SRCTAR" ] || die "$SRCTAR missing"

# --- build -------------------------------------------------------------------------------------------
B=$(mktemp -d "$CACHE/smbdirect-build.XXXXXX")
trap 'rm -rf "$B"' EXIT
S=$SRCPKG   # the tarball's top directory
say "unpacking fs/smb from $SRCTAR"
tar -xJf "$SRCTAR" -C "$B" "$S/fs/smb" "$S/fs/internal.h" "$S/scripts/asn1_compiler.c" \
  "$S/include/linux/asn1.h" "$S/include/linux/asn1_ber_bytecode.h"
mkdir -p "$B/build"
cp -a "$B/$S/fs/smb" "$B/build/smb"
cp "$B/$S/fs/internal.h" "$B/build/internal.h"          # vfs.c: #include "../../internal.h"
# Fix: opinfo_put(NULL) from smb2_open() (see the header); only where the NULL check is missing.
PATCHES=
f=$B/build/smb/server/oplock.c
grep -q '^void opinfo_put(struct oplock_info \*opinfo)$' "$f" || die "no opinfo_put() in $f"
if awk '/^void opinfo_put\(struct oplock_info \*opinfo\)$/ {getline; getline; exit !/^\tif \(!atomic_dec_and_test/}' "$f"; then
  sed -i '/^void opinfo_put(struct oplock_info \*opinfo)$/{n;a\
\tif (!opinfo)\
\t\treturn;\

}' "$f"
  grep -A3 '^void opinfo_put(struct oplock_info \*opinfo)$' "$f" | grep -q 'if (!opinfo)' || die "patching opinfo_put failed"
  PATCHES=opinfo_put-null-check
  say "patched smb/server/oplock.c: opinfo_put() accepts NULL (as upstream)"
fi
# Fix: room for ib_drain_qp()'s marker WRs in cifs's SMB Direct queue pair (see the header); only
# where the queue pair is still sized exactly to the credits.
f=$B/build/smb/client/smbdirect.c
if grep -qP '^\tqp_attr.cap.max_recv_wr = info->receive_credit_max;$' "$f"; then
  sed -i -e 's/^\tqp_attr.cap.max_send_wr = info->send_credit_target;$/\tqp_attr.cap.max_send_wr = info->send_credit_target + 1;\t\/* +1: ib_drain_qp() *\//' \
         -e 's/^\tqp_attr.cap.max_recv_wr = info->receive_credit_max;$/\tqp_attr.cap.max_recv_wr = info->receive_credit_max + 1;\t\/* +1: ib_drain_qp() *\//' \
         -e 's/^\t\t\t\tinfo->send_credit_target, IB_POLL_SOFTIRQ);$/\t\t\t\tinfo->send_credit_target + 1, IB_POLL_SOFTIRQ);/' \
         -e 's/^\t\t\t\tinfo->receive_credit_max, IB_POLL_SOFTIRQ);$/\t\t\t\tinfo->receive_credit_max + 1, IB_POLL_SOFTIRQ);/' "$f"
  [ "$(grep -c -e 'send_credit_target + 1' -e 'receive_credit_max + 1' "$f")" = 4 ] || die "patching smbdirect.c failed"
  PATCHES="${PATCHES:+$PATCHES }smbd-qp-drain-room"
  say "patched smb/client/smbdirect.c: queue pair and CQs one WR larger for ib_drain_qp() (as upstream)"
fi
gcc -O2 -I "$B/$S/include" -o "$B/asn1_compiler" "$B/$S/scripts/asn1_compiler.c"
for a in "$B"/build/smb/client/*.asn1 "$B"/build/smb/server/*.asn1; do
  "$B/asn1_compiler" "$a" "$a.c" "$a.h"
done

mk() {  # mk DIR ARGS...: one out-of-tree module build
  local d=$1; shift
  make -s -C "$HDR" M="$B/build/smb/$d" -j"$(nproc)" "$@" modules >&2 ||
    die "build of smb/$d failed"
}
say "building cifs.ko (CONFIG_CIFS_SMB_DIRECT)"
mk client CONFIG_CIFS=m CONFIG_CIFS_SMB_DIRECT=y KCFLAGS=-DCONFIG_CIFS_SMB_DIRECT=1
say "building ksmbd.ko (CONFIG_SMB_SERVER_SMBDIRECT)"
mk server CONFIG_SMB_SERVER=m CONFIG_SMB_SERVER_SMBDIRECT=y KCFLAGS=-DCONFIG_SMB_SERVER_SMBDIRECT=1
[ -f "$B/build/smb/client/smbdirect.o" ] || die "cifs.ko was built without smbdirect.o"
[ -f "$B/build/smb/server/transport_rdma.o" ] || die "ksmbd.ko was built without transport_rdma.o"
for m in client/cifs server/ksmbd; do
  vm=$(modinfo -F vermagic "$B/build/smb/$m.ko")
  [[ $vm == "$KVER "* ]] || die "$m.ko has vermagic '$vm', not $KVER"
done

# --- ksmbd-tools >= 3.5.2 from <codename>-backports, unpacked (never installed) ----------------------
ver_ge() { dpkg --compare-versions "$1" ge "$2"; }
TOOLS=$B/ksmbd-tools
sysver=$(dpkg-query -W -f '${Version}' ksmbd-tools 2>/dev/null || true)
if [ -n "$sysver" ] && ver_ge "$sysver" "$KSMBD_TOOLS_MIN"; then
  # The host's own is new enough: copy it so the module directory is complete either way.
  mkdir -p "$TOOLS/usr/sbin" "$TOOLS/usr/libexec"
  cp -a /usr/libexec/ksmbd.tools "$TOOLS/usr/libexec/"
  cp -a /usr/sbin/ksmbd.mountd /usr/sbin/ksmbd.adduser /usr/sbin/ksmbd.addshare /usr/sbin/ksmbd.control "$TOOLS/usr/sbin/"
  tver=$sysver
else
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:?}")
  A=$B/apt
  mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename-backports main" > "$A/sources.list"
  ao=(-o "Dir::Etc::SourceList=$A/sources.list" -o "Dir::Etc::SourceParts=$A/none"
      -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o APT::Sandbox::User=root)
  say "downloading ksmbd-tools from $codename-backports (host has ${sysver:-none}, ksmbd needs >= $KSMBD_TOOLS_MIN)"
  apt-get "${ao[@]}" update -qq >&2 || die "apt-get update of $codename-backports failed"
  (cd "$B" && apt-get "${ao[@]}" download -qq "ksmbd-tools/$codename-backports" >&2) ||
    die "cannot download ksmbd-tools from $codename-backports"
  dpkg -x "$B"/ksmbd-tools_*.deb "$TOOLS"
  tver=$(dpkg-deb -f "$B"/ksmbd-tools_*.deb Version)
  ver_ge "$tver" "$KSMBD_TOOLS_MIN" || die "$codename-backports has ksmbd-tools $tver < $KSMBD_TOOLS_MIN"
fi
"$TOOLS/usr/sbin/ksmbd.mountd" -V >/dev/null 2>&1 || die "the unpacked ksmbd.mountd does not run here"

# --- install into the cache ---------------------------------------------------------------------------
rm -rf "$OUT.part" && mkdir -p "$OUT.part"
cp "$B/build/smb/client/cifs.ko" "$B/build/smb/server/ksmbd.ko" "$OUT.part/"
strip --strip-debug "$OUT.part/cifs.ko" "$OUT.part/ksmbd.ko"   # 28+12 MB of DWARF otherwise
cp -a "$TOOLS" "$OUT.part/ksmbd-tools"
cat > "$OUT.part/BUILD-INFO" <<EOF
kernel=$KVER
upload=$UPLOAD
headers=$HDRPKG $UPLOAD
source=$SRCPKG $UPLOAD
ksmbd-tools=$tver
recipe=$RECIPE
patches=${PATCHES:-none}
cifs.ko=CONFIG_CIFS_SMB_DIRECT=y
ksmbd.ko=CONFIG_SMB_SERVER_SMBDIRECT=y
EOF
rm -rf "$OUT" && mv "$OUT.part" "$OUT"
say "done"
echo "$OUT"
