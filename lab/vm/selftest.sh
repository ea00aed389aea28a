#!/bin/bash
# lab/vm/selftest.sh — the whole interop lab in one go (~20 s): boots the VM, brings up Soft-RoCE and
# the kernel NFS server, writes a file with the kernel client over NFSv3/TCP and reads it back over
# NFSv4.1/RDMA. Exits 0 when the lab works on this machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/install-deps.sh"
exec "$here/run.sh" -t 300 -- bash -c '
set -euo pipefail
. '"$here"'/guest/rxe.sh
. '"$here"'/guest/knfsd.sh
mkdir -p /mnt/tcp /mnt/rdma
mount -t nfs -o vers=3,proto=tcp,nolock 127.0.0.1:$NFSD_EXPORT /mnt/tcp
mount -t nfs -o vers=4.1,proto=rdma,port=20049 $RXE_IP:/ /mnt/rdma
dd if=/dev/urandom of=/mnt/tcp/probe bs=1M count=8 status=none
cmp /mnt/tcp/probe /mnt/rdma/probe
grep -E " nfs4? " /proc/mounts | cut -d" " -f1-4
echo "lab selftest: kernel $(uname -r): NFSv3/TCP write -> NFSv4.1/RDMA read OK"
'
