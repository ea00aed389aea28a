#!/bin/bash
# interop-timeout: 1200
# kernel-client-v4-knfsd-tcp — the v4 kernel-client harness proven against its reference: the Linux
# kernel NFSv4.1 and NFSv4.2 client (lab VM) against the Linux kernel NFS server (knfsd on a tmpfs) in
# the same guest over TCP, one boot for both minor versions:
#   mount -o vers=4.1|4.2,proto=tcp,port=2049 127.0.0.1:/
#   guest/workload.sh's phase 1 compared with a local tmpfs; byte-range locks from two processes and a
#   second client (guest/locks-v4.py); a knfsd restart with a file open and a lock held (reclaim in
#   the grace period), the tree verified; rm -rf; clean kernel log and mountstats. Both minor versions
#   run without phase 2 (`:quick`; the 100 MiB file costs ~2.5 min per version under TCG): the
#   harness's phase 2 passed against knfsd in a manual run (`kernel-client-v4.sh OUT knfsd tcp 4.1
#   4.2`, 10.8 min). Measured through run.sh on a 2-core host under load 5-6 (other builds): 10.0 min
#   with 4.1:full 4.2:quick, 12.4 min with both quick (phase 1 alone took 55-155 s with the load).
#   Details: tests/interop/guest/kernel-client-v4.sh. The same harness against `nfsbench serve`:
#   kernel-client-v4-serve-tcp (in run.sh's default list; this reference is run by name).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

VM_LIMIT=1140 vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-client-v4.sh" "$SCEN_DIR" knfsd tcp 4.1:quick 4.2:quick
