#!/bin/bash
# crates/rdma-verbs/tests/vm.sh — the verbs provider on a real RDMA device: Soft-RoCE (rxe0 at
# 10.99.0.1) inside the lab VM (lab/vm/run.sh). Builds the examples on the host and runs, in one guest:
#   verbs_check  client and server in one process: private data, Send/receive, RDMA Read/Write of 1 MiB
#                and 4 KiB, flush on disconnect, invalidated R_key, RNR, Length, pools and windows
#                (memory windows on rxe: Write/Read through one, a gather Write, no registration over
#                200 windows, a closed window's R_key refused), Refused;
#   knfsd_null   against the kernel NFS server's RDMA listener (20049): RFC 8797 private data both
#                ways and an NFSv3 NULL call as RDMA_MSG.
# Prints their PASS/FAIL lines, then one final line `PASS rdma-verbs vm` or `FAIL rdma-verbs vm (...)`.
# Exit status 0 only on PASS.
#
#   crates/rdma-verbs/tests/vm.sh [PORT]       # verbs_check's port, default 20079
#
# Needs lab/vm/install-deps.sh (qemu, rdma-core, nfs-kernel-server) and the build dependencies of
# rdma-sys (libibverbs-dev, librdmacm-dev, libclang-dev). About 15 s of VM time under TCG.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$root" || exit 2
port=${1:-20079}

if ! cargo build -q -p rdma-verbs --examples; then
  echo "FAIL rdma-verbs vm (build)"
  exit 1
fi
bin=$(realpath "${CARGO_TARGET_DIR:-target}")/debug/examples
lab/vm/run.sh -t 420 -- bash -c "
  . lab/vm/guest/rxe.sh || exit 1
  echo '--- verbs_check'
  $bin/verbs_check \$RXE_IP $port; a=\$?
  . lab/vm/guest/knfsd.sh || exit 1
  echo '--- knfsd_null'
  $bin/knfsd_null \$RXE_IP; b=\$?
  [ \$a = 0 ] && [ \$b = 0 ]"
status=$?
if [ "$status" -eq 0 ]; then
  echo "PASS rdma-verbs vm"
else
  echo "FAIL rdma-verbs vm (exit status $status$([ "$status" -eq 125 ] && echo ': the VM died or timed out'))"
fi
exit "$status"
