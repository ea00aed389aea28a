#!/bin/bash
# interop-timeout: 600
# nfsbench-client-kernel-server-rdma — nfsbench's own NFSv3 client against the Linux kernel NFS server
# (knfsd in the lab VM) over RPC-over-RDMA (Soft-RoCE, port 20049). SKIPs while `nfsbench run` is absent
# or refuses -o proto=rdma as not implemented (exit status 2).
# Body: tests/interop/lib/nfsbench-client-kernel-server.sh.
set -euo pipefail
# shellcheck disable=SC2034  # read by the sourced body
PROTO=rdma
. "$(dirname "$0")/../lib/nfsbench-client-kernel-server.sh"
