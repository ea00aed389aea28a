#!/bin/bash
# tests/interop/guest/kernel-engine.sh OUT knfsd|serve — runs INSIDE the lab VM (lab/vm/run.sh), as root.
#
# `nfsbench compare --engine kernel`: the guest's own NFS client mounts each case with mount.nfs (in a
# private mount namespace) and nfsbench's file engine runs the jobs on the mount.
#
# knfsd: against the kernel NFS server on Soft-RoCE ($RXE_IP), two plans —
#   NFSv3 at $RXE_IP:/srv/nfs: tcp, rdma (port 20049), tcp with nconnect=4, tcp with rsize=4194304
#   (above knfsd's 1 MiB: the kernel lowers it and the report must flag it), and a case the server
#   refuses (sec=krb5 on a sec=sys export): it is marked failed with mount.nfs's words and the rest
#   is measured (exit status 1);
#   NFSv4.1 and NFSv4.2 at $RXE_IP:/ (the fsid=0 pseudo-root), over TCP and over RDMA;
#   two clients under mpirun, each mounting in its own namespace;
#   then SIGINT in the middle of a cell: compare stops, and no NFS mount (no superblock, no mount point,
#   no child) is left; the file engine beside Debian's fio on a v3 mount (bench/file-engine-vs-fio.sh
#   --check); without root, exit status 2 naming root.
# serve: against `nfsbench serve` on $RXE_IP (TCP, and RPC-over-RDMA through the verbs provider on rxe0).
# Checks of every plan: every case measured (but the refused one), the negotiated options in the
# report beside the asked ones (4 transports for nconnect=4; rsize lowered and flagged), the kernel
# client's counters in every cell (xprtrdma's for RDMA cases), the server's own byte counters grew by
# at least what the report says it moved, and no NFS mount outlives the run.
set -euo pipefail
OUT=$1 MODE=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The prelude (common.sh, the EXIT trap stopping $SERVER_PID, Soft-RoCE) and compare_plan & co.
. "$here/compare-lib.sh"
WORKLOADS=seq-read-1m,rand-write-4k
PLAN_ARGS=(--engine kernel --quick --reps 1 --size 8m --no-wire) PLAN_TIMEOUT=400 PLAN_TITLE="nfsbench compare --engine kernel"
REPORT_CHECKER=kernel_engine_check.py   # check_report NAME SERVER_BYTES EXPECTATIONS

# No NFS superblock anywhere in the guest: every mount of the run is gone.
volumes() { tail -n +2 /proc/fs/nfsfs/volumes 2>/dev/null | grep -c . || true; }
nothing_left() {
  local what=$1 deadline=$((SECONDS + 30))
  until [ "$(volumes)" = 0 ]; do
    [ $SECONDS -lt $deadline ] || { cat /proc/fs/nfsfs/volumes; fail "$what: NFS volumes left 30 s after the run"; }
    sleep 0.2
  done
  ! grep -q ' nfs4\? ' /proc/mounts || fail "$what: an NFS mount is visible in the host's namespace: $(grep ' nfs' /proc/mounts)"
  ! ls -d /tmp/nfsbench-mnt-* 2>/dev/null || fail "$what: a mount point directory was left in /tmp"
}
cell_is_private() { ! grep -q ' nfs ' /proc/mounts || fail "the kernel engine's mount is visible outside its private namespace"; }

if [ "$MODE" = knfsd ]; then
  . "$INTEROP_ROOT/lab/vm/guest/knfsd.sh" || fail "knfsd setup (lab/vm/guest/knfsd.sh) failed"
  io() { awk '$1 == "io" { print $2 + $3 }' /proc/net/rpc/nfsd; }

  IO0=$(io)
  compare_plan v3 1 --target "$RXE_IP:$NFSD_EXPORT" \
    --case v3-tcp=vers=3,proto=tcp,nolock --case v3-rdma=vers=3,proto=rdma,port=20049,nolock \
    --case v3-tcp-nconnect4=vers=3,proto=tcp,nconnect=4,nolock \
    --case v3-tcp-rsize4m=vers=3,proto=tcp,rsize=4194304,nolock \
    --case refused=vers=3,proto=tcp,nolock,sec=krb5
  failed_cases v3 1
  IO1=$(io)
  check_report v3 $((IO1 - IO0)) 'v3-tcp:tcp:1 v3-rdma:rdma:1 v3-tcp-nconnect4:tcp:4 v3-tcp-rsize4m:tcp:1:rsize refused:failed:denied'

  compare_plan v4 0 --target "$RXE_IP:/" \
    --case v41-tcp=vers=4.1,proto=tcp --case v42-tcp=vers=4.2,proto=tcp \
    --case v41-rdma=vers=4.1,proto=rdma,port=20049 --case v42-rdma=vers=4.2,proto=rdma,port=20049
  IO2=$(io)
  check_report v4 $((IO2 - IO1)) 'v41-tcp:tcp:1 v42-tcp:tcp:1 v41-rdma:rdma:1 v42-rdma:rdma:1'

  # Under mpirun every rank mounts in its own namespace (here two ranks on this host); the report
  # carries rank 0's negotiation and the merged figures.
  PLAN_WORKLOADS=seq-read-1m compare_plan clients 0 --target "$RXE_IP:$NFSD_EXPORT" --case tcp=vers=3,proto=tcp,nolock \
    --clients 2
  check_report clients -1 'tcp:tcp:1'
  grep -q "2 clients" "$OUT/clients.out" || fail "clients: the report does not say 2 clients"

  step "SIGINT in the middle of a cell"
  # The measured cell runs when its mount exists and the layout is done (the cell's JSON is pending).
  interrupt_mid_cell "a measured cell on a kernel mount" \
    '[ "$(tail -n +2 /proc/fs/nfsfs/volumes | grep -c .)" -ge 1 ] && ls '"$OUT"'/interrupted/cells/*.err' \
    "no NFS volume, mount point or child left" \
    --engine kernel --target "$RXE_IP:$NFSD_EXPORT" --case tcp=vers=3,proto=tcp,nolock \
    --workloads seq-read-1m --reps 1 --size 8m --no-wire --runtime 60s --ramp-time 0s

  step "without root: exit status 2 naming root"
  rc=0
  setpriv --reuid=65534 --regid=65534 --clear-groups "$NFSBENCH" compare --engine kernel --target "$RXE_IP:/x" \
    --quick --out /tmp/nonroot > "$OUT/nonroot.out" 2>&1 || rc=$?
  [ $rc = 2 ] && grep -q "needs root" "$OUT/nonroot.out" || fail "without root: status $rc: $(tail -n 1 "$OUT/nonroot.out")"

  step "the file engine beside fio on a kernel NFS mount"
  mkdir -p /mnt/fio
  must 60 "mount for fio" mount -t nfs -o vers=3,proto=tcp,nolock "$RXE_IP:$NFSD_EXPORT" /mnt/fio
  rc=0
  tmo 300 "$INTEROP_ROOT/bench/file-engine-vs-fio.sh" --check --reps 2 --file-size 32m --rr-size 8m \
    --nfsbench "$NFSBENCH" --out "$OUT/file-vs-fio" /mnt/fio > "$OUT/file-vs-fio.txt" 2>&1 || rc=$?
  cat "$OUT/file-vs-fio.txt"
  umount /mnt/fio
  [ $rc = 0 ] || fail "file engine against fio on the NFS mount: $(tail -n 1 "$OUT/file-vs-fio.txt")"
  summary "knfsd: v3 (tcp, rdma, nconnect=4, rsize flagged, refused case failed) and v4.1/v4.2 (tcp, rdma) measured by the kernel engine; file engine vs fio on the mount: $(grep -m1 -i 'ratio\|ours/fio' "$OUT/file-vs-fio.txt" || true)"
else
  step "nfsbench serve on $RXE_IP (TCP, and RPC-over-RDMA through the verbs provider on rxe0, two network threads)"
  # Two network threads and two of rxe0's completion vectors: nconnect=2's queue pairs are dealt one each.
  start_server "$OUT" --listen "$RXE_IP:0" --export /export=mem:256MiB --rdma --rdma-provider verbs \
    --rdma-listen "$RXE_IP:20049" --rdma-threads 2 --rdma-comp-vectors 2
  P=$SERVER_PORT
  compare_plan serve 0 --target "$RXE_IP:/export" \
    --case tcp=vers=3,proto=tcp,port=$P,mountport=$P,mountproto=tcp,nolock \
    --case rdma=vers=3,proto=rdma,port=20049,mountport=$P,mountproto=tcp,nolock \
    --case rdma2=vers=3,proto=rdma,port=20049,nconnect=2,mountport=$P,mountproto=tcp,nolock
  check_server_alive "after the kernel engine's plan"
  check_report serve -1 'tcp:tcp:1 rdma:rdma:1 rdma2:rdma:2'   # -1: the server's byte counters are not read here
  summary "nfsbench serve: tcp, rdma and rdma nconnect=2 (verbs, rxe0, 2 network threads and completion vectors) measured by the kernel client through the kernel engine"
fi
