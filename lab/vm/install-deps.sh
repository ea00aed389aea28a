#!/bin/bash
# lab/vm/install-deps.sh — installs (once) the Debian 12 packages the interop lab needs on the host.
#
# The VM shares the host's root filesystem read-only, so every program the guest runs (the NFS server
# and client utilities, rdma tools, tcpdump, ...) is borrowed from the host: install it here. Also
# tshark, which reads the captures on the host. Idempotent: does nothing when all are present.
# Run as root (or with sudo available).
set -euo pipefail

pkgs=(
  qemu-system-x86 busybox-static cpio kmod   # the VM itself: emulator, initramfs shell, module tools
  iproute2                                   # ip, rdma (Soft-RoCE link setup)
  nfs-kernel-server nfs-common rpcbind       # knfsd's user half (exportfs, rpc.mountd, rpc.nfsd), mount.nfs
  rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest   # verbs userspace, rxe provider, tools
  nvme-cli open-iscsi                        # kernel NVMe-oF and iSCSI/iSER initiators' tools (nvme, iscsid, iscsiadm)
  fio bc python3                             # load generation and helpers used by lab scripts
  tcpdump tshark                             # capture in the guest, dissect on the host
)
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "lab/vm/install-deps: installing ${missing[*]}" >&2
# tshark's package asks whether non-root users may capture; answer "no" so the install never prompts.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
