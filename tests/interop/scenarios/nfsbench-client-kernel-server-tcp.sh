#!/bin/bash
# interop-timeout: 600
# nfsbench-client-kernel-server-tcp — nfsbench's own NFSv3 client (`nfsbench run`) against the Linux
# kernel NFS server (knfsd in the lab VM) over TCP: 64 MiB write/read/randread with verify=crc32c, a
# server-side corruption verify must catch, 4 KiB randwrite with fsync=32 (COMMIT) under tcpdump,
# nconnect=4 seen with ss; the capture dissected by tshark and `nfsbench decode` on the host.
# SKIPs while the binary has no `nfsbench run`. Body: tests/interop/lib/nfsbench-client-kernel-server.sh,
# guest half: tests/interop/guest/nfsbench-client.sh.
set -euo pipefail
# shellcheck disable=SC2034  # read by the sourced body
PROTO=tcp
. "$(dirname "$0")/../lib/nfsbench-client-kernel-server.sh"
