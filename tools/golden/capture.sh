#!/bin/bash
# tools/golden/capture.sh — regenerate the golden capture of real NFSv3/MOUNT/rpcbind traffic.
#
# Boots the lab VM (lab/vm/run.sh), where tools/golden/guest-capture.sh starts Soft-RoCE and the
# Linux kernel NFS server, and captures while the kernel NFS client, nfs-utils, rpcbind's rpcinfo and
# libnfs go through every NFSv3 and MOUNTv3 procedure, over TCP and then over RDMA. On success it
# replaces, in testdata/golden/:
#   nfs3-tcp.pcap       loopback, TCP only (full snap length, Ethernet link type)
#   nfs3-rdma.pcap      RoCEv2 (UDP 4791) between the client's and the server's Soft-RoCE devices
#   capture.log         every command run during the captures, with guest timestamps
#   capture-info.json   kernel and package versions inside the guest
# Then run tools/golden/extract.py to cut the records and rebuild the indexes. Takes ~3 minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dest=$repo/testdata/golden

"$repo/lab/vm/install-deps.sh"
tmp=$(mktemp -d /var/tmp/nfsbench-golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$repo/lab/vm/run.sh" -m 2G -c 2 -t 540 -w "$tmp" -- "$here/guest-capture.sh" "$tmp"

size=$(cat "$tmp"/nfs3-*.pcap | wc -c)
if [ "$size" -gt $((5 * 1024 * 1024)) ]; then
  echo "capture.sh: the capture is $size bytes; keep it under 5 MiB (fewer or smaller transfers)" >&2
  exit 1
fi
mkdir -p "$dest"
for f in nfs3-tcp.pcap nfs3-rdma.pcap capture.log capture-info.json; do install -m 644 "$tmp/$f" "$dest/$f"; done
echo "capture.sh: $size bytes of pcap in testdata/golden/; next: tools/golden/extract.py"
