#!/bin/bash
# interop-timeout: 600
# kernel-client-rdma — the kernel client's workload of kernel-client-tcp, over RPC-over-RDMA v1
# (Soft-RoCE in the lab VM): mount -o vers=3,proto=rdma,port=20049,mountport=P,mountproto=tcp.
# SKIPs while `nfsbench serve --rdma` is refused as unsupported (this build has no RDMA transport).
# The RDMA branch of guest/kernel-client.sh is untested until that transport exists.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

# Probe: does this nfsbench serve RPC-over-RDMA? It exits 2 naming --rdma when it cannot.
rc=0
tmo 10 "$NFSBENCH" serve --rdma --listen 127.0.0.1:0 --export /export=mem:16MiB --ready-file "$SCEN_DIR/probe.ready" \
  > "$SCEN_DIR/probe.out" 2>&1 || rc=$?
cat "$SCEN_DIR/probe.out"
if [ $rc = 2 ] && grep -qi 'rdma' "$SCEN_DIR/probe.out"; then
  skip "RPC-over-RDMA transport not built yet ($(head -n1 "$SCEN_DIR/probe.out"))"
fi
[ $rc = 124 ] || fail "probe 'nfsbench serve --rdma' exited with status $rc (expected 2 'unsupported', or to keep serving)"

vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-client.sh" "$SCEN_DIR" full rdma
