#!/bin/bash
# interop-timeout: 600
# nfsbench-client-kernel-server-tcp — nfsbench's own NFSv3 client against the Linux kernel NFS server
# (knfsd in the lab VM) over TCP. SKIPs until `nfsbench run` exists.
# Body: tests/interop/lib/nfsbench-client-kernel-server.sh.
set -euo pipefail
# shellcheck disable=SC2034  # read by the sourced body
PROTO=tcp
. "$(dirname "$0")/../lib/nfsbench-client-kernel-server.sh"
