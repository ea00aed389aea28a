#!/bin/bash
# tools/golden/capture-v4.sh — regenerate the golden capture of real NFSv4.1/NFSv4.2 traffic.
#
# A capture of its own, separate from capture.sh's NFSv3 one (whose pcaps and records stay as they
# are). Boots the lab VM (lab/vm/run.sh), where tools/golden/guest-capture-v4.sh starts Soft-RoCE (two
# rxe devices on a veth pair) and the Linux kernel NFS server, and captures the Linux kernel NFS client
# going through the NFSv4.1 and NFSv4.2 operations it uses, over TCP and then over RPC-over-RDMA. On
# success it replaces, in testdata/golden/v4/:
#   nfs4-tcp.pcap       loopback, TCP port 2049 only (full snap length, Ethernet link type)
#   nfs4-rdma.pcap      RoCEv2 (UDP 4791) between the client's and the server's Soft-RoCE devices
#   capture.log         every command run during the captures, with guest timestamps
#   capture-info.json   kernel and package versions inside the guest
# Then run tools/golden/extract_v4.py to cut the records and rebuild the indexes. Takes ~4 minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dest=$repo/testdata/golden/v4

"$repo/lab/vm/install-deps.sh"
tmp=$(mktemp -d /var/tmp/nfsbench-golden-v4.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$repo/lab/vm/run.sh" -m 2G -c 2 -t 600 -w "$tmp" -- "$here/guest-capture-v4.sh" "$tmp"

size=$(cat "$tmp"/nfs4-*.pcap | wc -c)
if [ "$size" -gt $((6 * 1024 * 1024)) ]; then
  echo "capture-v4.sh: the capture is $size bytes; keep it under 6 MiB (fewer or smaller transfers)" >&2
  exit 1
fi
mkdir -p "$dest"
for f in nfs4-tcp.pcap nfs4-rdma.pcap capture.log capture-info.json; do install -m 644 "$tmp/$f" "$dest/$f"; done
echo "capture-v4.sh: $size bytes of pcap in testdata/golden/v4/; next: tools/golden/extract_v4.py"
