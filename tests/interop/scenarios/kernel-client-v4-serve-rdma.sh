#!/bin/bash
# interop-timeout: 1560
# kernel-client-v4-serve-rdma — the Linux kernel NFSv4.1 and NFSv4.2 client (lab VM) against
# `nfsbench serve --rdma` (a `dir:` export on a tmpfs, --state-dir kept across restarts) over
# RPC-over-RDMA on Soft-RoCE (rxe0 on a dummy device, port 20049), one boot for both minor versions:
#   mount -o vers=4.1|4.2,proto=rdma,port=20049 $RXE_IP:/export
#   the checks of kernel-client-v4-serve-tcp (workload phases 1 and 2 against a local tmpfs, locks from
#   two processes and a second client, a server restart with open and lock reclaim, remount, rm -rf, clean
#   kernel and server logs), and the mount must really use RDMA (mountstats' xprt). No capture: rxe
#   traffic on one device reaches no capturable interface; the backchannel and the RPC-over-RDMA framing
#   are judged by the kernel client's own counters (no reply it could not parse, no bad XID).
# Details: tests/interop/guest/kernel-client-v4.sh; reference run against knfsd: kernel-client-v4-knfsd-rdma.
# Measured on the 2-core host in a clean-clone make test: 375 s for both versions in full (phase 1 34-42 s,
# 100 MiB at 7-9 MiB/s written, 6-6.5 MiB/s read). Under load 6-7 (a build and a benchmark beside it): 4.1 full in
# 12.5 min (phase 1 214 s, 100 MiB at 4.3 MiB/s written, 2.5 MiB/s read); 4.2 passed phase 1, locks and
# the restart before the old 1,140 s limit ended the run in its phase 2: hence VM_LIMIT 1500.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

VM_LIMIT=1500 vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-client-v4.sh" "$SCEN_DIR" nfsbench rdma 4.1:full 4.2:full
