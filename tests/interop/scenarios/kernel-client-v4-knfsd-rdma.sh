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

# vm_guest's 540 s limit is too tight for two minor versions on a loaded host: the same call, 1140 s.
need_vm
step "booting the lab VM (the guest log follows)"
rc=0
tmo 1170 "$INTEROP_ROOT/lab/vm/run.sh" -m 2G -c 2 -t 1140 -w "$SCEN_DIR" -e "NFSBENCH=$NFSBENCH" -- \
  bash "$INTEROP_ROOT/tests/interop/guest/kernel-client-v4.sh" "$SCEN_DIR" knfsd rdma 4.1:quick 4.2:quick || rc=$?
[ $rc = 0 ] && exit 0
[ $rc = 125 ] && fail "the VM died or timed out before the guest script finished (guest kernel log above)"
fail "guest script failed (exit status $rc)"
