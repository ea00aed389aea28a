#!/bin/bash
# interop-timeout: 1200
# kernel-client-v4-knfsd-rdma — kernel-client-v4-knfsd-tcp over RPC-over-RDMA (Soft-RoCE rxe0 in the
# lab VM): the Linux kernel NFSv4.1 and NFSv4.2 client against knfsd's RDMA listener,
#   mount -o vers=4.1|4.2,proto=rdma,port=20049 10.99.0.1:/
# with the second client of the lock and restart tests over TCP (the other minor version); the
# backchannel (CB_NOTIFY_LOCK) runs over the RDMA connection. Both minor versions run without phase 2
# (`:quick`) to keep the time down: 6.5 min measured through run.sh on a 2-core host under load 5-6;
# with phase 2 (`kernel-client-v4.sh OUT knfsd rdma 4.1 4.2`, passed) 13.7 min. Details:
# tests/interop/guest/kernel-client-v4.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

VM_LIMIT=1140 vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-client-v4.sh" "$SCEN_DIR" knfsd rdma 4.1:quick 4.2:quick
