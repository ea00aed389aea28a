#!/bin/bash
# interop-timeout: 600
# kernel-client-tcp — the Linux kernel NFSv3 client (lab VM, Debian's kernel under QEMU) against
# `nfsbench serve` on the guest's loopback over TCP:
#   mount -o vers=3,proto=tcp,port=P,mountport=P,mountproto=tcp,nolock
#   phase 1: create/write/read/append/truncate/rename/link/symlink/readlink/mkdir/rmdir/chmod/utimes,
#            files of 0 B, 1 B and 1 MiB + 1, a directory of 1,000 entries; compared command by command
#            and tree by tree with the same workload on a local tmpfs; df (FSSTAT); captured with
#            tcpdump -s 0 into kernel-client-tcp.pcap (used by tshark-server-capture)
#   umount/remount, verify; phase 2: 100 MiB written with dd bs=4M + fsync, read back uncached;
#   umount/remount, verify everything; rm -rf; the kernel's log and mountstats must be clean.
# Details: tests/interop/guest/kernel-client.sh and guest/workload.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-client.sh" "$SCEN_DIR" full tcp
