#!/bin/bash
# crates/mountstats/testdata/capture.sh — regenerate the golden mountstats captures in one lab VM boot.
#
#   crates/mountstats/testdata/capture.sh        # from the repository root; needs root (lab/vm)
#
# Boots lab/vm once, brings up Soft-RoCE and knfsd, and for each mount variant below: mounts knfsd's
# export, writes and reads a few MiB with dd (O_DIRECT, so the counters are nonzero), saves
# /proc/self/mountstats as NAME.txt, unmounts. One variant is saved before and after its I/O
# (NAME.before.txt) for the window tests. Also saves uname -r as kernel.txt.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)
cd "$(dirname "$0")/../../.."
exec lab/vm/run.sh -t 500 -w "$out" -- bash -c '
set -uo pipefail
out='"$out"'
. lab/vm/guest/rxe.sh
. lab/vm/guest/knfsd.sh
uname -r > "$out/kernel.txt"
mkdir -p /mnt/t
cap() {  # cap NAME OPTIONS SOURCE [before]
  local name=$1 opts=$2 src=$3
  if ! mount -t nfs -o "$opts" "$src" /mnt/t 2> "$out/$name.err"; then
    echo "capture: $name: mount -o $opts failed: $(cat "$out/$name.err")"; return
  fi
  rm -f "$out/$name.err"
  [ "${4:-}" = before ] && cat /proc/self/mountstats > "$out/$name.before.txt"
  dd if=/dev/zero of=/mnt/t/f bs=1M count=4 oflag=direct status=none
  dd if=/mnt/t/f of=/dev/null bs=1M iflag=direct status=none
  dd if=/dev/zero of=/mnt/t/g bs=4k count=64 oflag=direct status=none
  ls -l /mnt/t > /dev/null
  rm -f /mnt/t/f /mnt/t/g
  cat /proc/self/mountstats > "$out/$name.txt"
  umount /mnt/t
  echo "capture: $name ok"
}
cap v3-tcp             vers=3,proto=tcp,nolock                        $RXE_IP:/srv/nfs before
cap v3-tcp-nconnect4   vers=3,proto=tcp,nconnect=4,nolock             $RXE_IP:/srv/nfs
cap v3-rdma            vers=3,proto=rdma,port=20049,nolock            $RXE_IP:/srv/nfs
cap v41-tcp            vers=4.1,proto=tcp                             $RXE_IP:/
cap v42-tcp            vers=4.2,proto=tcp                             $RXE_IP:/
cap v41-rdma           vers=4.1,proto=rdma,port=20049                 $RXE_IP:/ before
cap v4-tcp             vers=4,proto=tcp                               $RXE_IP:/
cap v3-tcp-rsize4m     vers=3,proto=tcp,rsize=4194304,wsize=4194304,nolock $RXE_IP:/srv/nfs
cap v41-rdma-nconnect2 vers=4.1,proto=rdma,port=20049,nconnect=2      $RXE_IP:/
'
