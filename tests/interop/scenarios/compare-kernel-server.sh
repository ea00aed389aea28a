#!/bin/bash
# interop-timeout: 600
# compare-kernel-server — `nfsbench compare` against the Linux kernel NFS server (knfsd in the lab VM)
# with a TCP case and an RPC-over-RDMA case (Soft-RoCE through the verbs provider), and the wire
# baselines measured against an `nfsbench serve --baseline-listen` beside knfsd on the same path.
# Checks the report's data against knfsd's own byte counters. Guest half: tests/interop/guest/compare.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
tmo 10 "$NFSBENCH" compare --help > "$SCEN_DIR/probe.out" 2>&1 || { cat "$SCEN_DIR/probe.out"; fail "nfsbench has no compare subcommand"; }
vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/compare.sh" "$SCEN_DIR"
