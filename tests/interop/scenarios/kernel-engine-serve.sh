#!/bin/bash
# interop-timeout: 600
# kernel-engine-serve — `nfsbench compare --engine kernel`: the lab VM's own NFS client measured on mounts
# of `nfsbench serve` (TCP, and RPC-over-RDMA through the verbs provider on rxe0),
# asked vs negotiated options, the client's counters, nothing left mounted. Guest half:
# tests/interop/guest/kernel-engine.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-engine.sh" "$SCEN_DIR" serve
