#!/bin/bash
# interop-timeout: 600
# kernel-engine-knfsd — `nfsbench compare --engine kernel`: the lab VM's own NFS client measured on mounts
# of the kernel NFS server (NFSv3, v4.1, v4.2 over TCP and Soft-RoCE),
# asked vs negotiated options, the client's counters, nothing left mounted. Guest half:
# tests/interop/guest/kernel-engine.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-engine.sh" "$SCEN_DIR" knfsd
