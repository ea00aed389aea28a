#!/bin/bash
# interop-timeout: 600
# rdma-verbs-provider — nfsbench's verbs provider (rdma-core) on a real RDMA device: Soft-RoCE (rxe0) in the
# lab VM. crates/rdma-verbs/tests/vm.sh builds its examples and runs, in one guest: verbs_check (RFC 8797
# private data seen exactly, Send/receive both ways, RDMA Read/Write of 1 MiB and 4 KiB with contents
# checked, a late RDMA Write with a deregistered R_key refused, RNR without a posted receive, a too-long
# Send, flush on disconnect, Refused) and knfsd_null (the kernel NFS server's RDMA listener: its private
# data, its credit grant, an NFSv3 NULL call as RDMA_MSG).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

"$INTEROP_ROOT/lab/vm/install-deps.sh" >/dev/null
out=$("$INTEROP_ROOT/crates/rdma-verbs/tests/vm.sh" 2>&1) && rc=0 || rc=$?
printf '%s\n' "$out"
[ $rc = 0 ] || fail "$(printf '%s\n' "$out" | grep -m1 -E '^(FAIL|not ok)|FAIL' || echo "vm.sh exit status $rc")"
passed=$(printf '%s\n' "$out" | grep -c '^PASS\|^ok' || true)
summary "verbs provider over rxe0: $passed checks passed (verbs_check + knfsd_null), see log"
