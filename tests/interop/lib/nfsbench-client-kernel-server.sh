# tests/interop/lib/nfsbench-client-kernel-server.sh — sourced by the two
# shellcheck shell=bash
# nfsbench-client-kernel-server-{tcp,rdma} scenarios with PROTO set: nfsbench's own client
# (`nfsbench run`) against the Linux kernel NFS server (knfsd in the lab VM).
# SKIPs while the binary has no `run` subcommand. Until the client exists this body is written against
# the contract in shared/CLI.md and untested: a 64 MiB sequential write with verify=crc32c, then a read
# with verify, over NFSv3 (PROTO tcp: 127.0.0.1:/srv/nfs; rdma: Soft-RoCE, port 20049).
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! tmo 10 "$NFSBENCH" run --help > "$SCEN_DIR/probe.out" 2>&1; then
  cat "$SCEN_DIR/probe.out"
  skip "nfsbench client not built yet (no 'nfsbench run' subcommand)"
fi
if [ "$PROTO" = rdma ]; then
  # The client's RDMA transport: assume absent while `run --help` does not mention proto=rdma.
  grep -qi rdma "$SCEN_DIR/probe.out" || skip "RPC-over-RDMA transport not built yet ('nfsbench run --help' has no rdma)"
fi

cat > "$SCEN_DIR/guest.sh" <<GUEST
set -euo pipefail
export SCEN_DIR=$SCEN_DIR
. $INTEROP_ROOT/tests/interop/lib/common.sh
trap 'dmesg > $SCEN_DIR/dmesg.txt' EXIT
HOST=127.0.0.1 OPTS=vers=3,proto=tcp
if [ $PROTO = rdma ]; then
  . $INTEROP_ROOT/lab/vm/guest/rxe.sh || fail "Soft-RoCE setup failed"
  HOST=\$RXE_IP OPTS=vers=3,proto=rdma,port=20049,mountproto=tcp
fi
. $INTEROP_ROOT/lab/vm/guest/knfsd.sh || fail "knfsd setup failed"
for rw in write read; do
  step "nfsbench run --rw=\$rw"
  must 300 "nfsbench run --rw=\$rw" "\$NFSBENCH" run --name=interop --rw=\$rw --bs=1m --size=64m \
    --verify=crc32c --target "\$HOST:\$NFSD_EXPORT" -o "\$OPTS"
done
n=\$(find "\$NFSD_EXPORT" -type f -size 64M | wc -l)
[ "\$n" -ge 1 ] || fail "no 64 MiB file appeared in the kernel server's export"
summary "64 MiB write+verify and read+verify against knfsd over $PROTO"
GUEST
vm_scenario bash "$SCEN_DIR/guest.sh"
