# lab/vm/guest/knfsd.sh — source inside the lab VM: the Linux kernel NFS server on a RAM disk.
#
#   . lab/vm/guest/knfsd.sh      # after lab/vm/guest/rxe.sh if RDMA is wanted
#
# Exports a tmpfs at $NFSD_EXPORT to everyone (rw, sync, no_root_squash, insecure, fsid=0) over
#   TCP  port 2049                        NFSv3 and NFSv4.x (the kernel's defaults; v2 is off)
#   RDMA port 20049 (when rxe0 is up)     same versions, RPC-over-RDMA v1
# with rpcbind on 111 and rpc.mountd (MOUNT v1/v3) on $MOUNTD_PORT over TCP and UDP.
# Pitfalls handled here: a tmpfs has no UUID, so the export needs fsid=0 (also the NFSv4 pseudo-root);
# the NFSv4 grace period (90 s) is ended at once. Clients of NFSv3 must mount with `nolock` (no statd).
# Environment (optional): NFSD_EXPORT (/srv/nfs), NFSD_SIZE (1G), NFSD_THREADS (8),
# MOUNTD_PORT (20048), NFSD_OPTS (export options, default below), NFSD_MAX_BLOCK_SIZE (1048576: the
# largest READ/WRITE payload; knfsd's own default shrinks with guest memory, to 256 KiB at 2 GiB).
# Extra exports: write lines to /etc/exports.d/NAME.exports and run `exportfs -ra`.
# Returns non-zero (without changing the caller's shell options) on failure.

NFSD_EXPORT=${NFSD_EXPORT:-/srv/nfs}
NFSD_SIZE=${NFSD_SIZE:-1G}
NFSD_THREADS=${NFSD_THREADS:-8}
MOUNTD_PORT=${MOUNTD_PORT:-20048}
NFSD_OPTS=${NFSD_OPTS:-rw,sync,no_subtree_check,no_root_squash,insecure,fsid=0}
NFSD_MAX_BLOCK_SIZE=${NFSD_MAX_BLOCK_SIZE:-1048576}

knfsd_up() {
  local m
  for m in nfsd nfsv3 nfsv4; do modprobe "$m" || return 1; done
  mkdir -p "$NFSD_EXPORT" /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery /run/rpcbind /etc/exports.d
  mountpoint -q "$NFSD_EXPORT" || mount -t tmpfs -o "size=$NFSD_SIZE" tmpfs "$NFSD_EXPORT" || return 1
  mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
  mountpoint -q /var/lib/nfs/rpc_pipefs || mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs || return 1

  pidof rpcbind >/dev/null || rpcbind || return 1
  echo "$NFSD_EXPORT *($NFSD_OPTS)" > /etc/exports
  exportfs -ra || return 1
  pidof rpc.mountd >/dev/null || rpc.mountd --port "$MOUNTD_PORT" || return 1
  # Settable only while no nfsd thread runs: the payload limit, then the threads. rpc.nfsd opens 2049
  # and registers with rpcbind.
  if [ "$(cat /proc/fs/nfsd/threads)" = 0 ]; then
    echo "$NFSD_MAX_BLOCK_SIZE" > /proc/fs/nfsd/max_block_size || return 1
  fi
  rpc.nfsd "$NFSD_THREADS" || return 1
  echo Y > /proc/fs/nfsd/v4_end_grace     # skip the 90 s NFSv4 grace period
  if [ -d /sys/class/infiniband/rxe0 ]; then
    modprobe rpcrdma || return 1
    grep -q '^rdma 20049' /proc/fs/nfsd/portlist || echo 'rdma 20049' > /proc/fs/nfsd/portlist || return 1
  fi
}

knfsd_up || { echo "knfsd.sh: kernel NFS server setup failed" >&2; false; }
