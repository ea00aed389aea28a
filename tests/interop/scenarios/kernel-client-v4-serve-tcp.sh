#!/bin/bash
# interop-timeout: 1560
# kernel-client-v4-serve-tcp — the Linux kernel NFSv4.1 and NFSv4.2 client (lab VM) against
# `nfsbench serve` (a `dir:` export on a tmpfs, --state-dir kept across restarts) in the same guest over
# TCP, one boot for both minor versions:
#   mount -o vers=4.1|4.2,proto=tcp,port=P 127.0.0.1:/export
#   guest/workload.sh's phase 1 compared command by command and tree by tree with a local tmpfs, df;
#   byte-range locks from two processes and from a second client (guest/locks-v4.py); a restart of the
#   server with a file open and a lock held: the client reclaims both in the grace period, the same
#   descriptor reads and writes, and the tree read back with the caches dropped is intact; phase 2 (100
#   MiB with fsync, read back uncached, a 5 GiB sparse file) and a remount verifying everything; rm -rf;
#   the kernel's log and mountstats clean; the server's log clean and its shutdown orderly.
#   Each version's mount and phase 1 are captured (tcpdump -s 0) and dissected on the host by tshark (no
#   malformed frame, every call answered once, the right minor version, no status saying the server or
#   the session failed) and decoded by `nfsbench decode` (lib/v4-capture-check.sh, CLIENT kernel).
# Details: tests/interop/guest/kernel-client-v4.sh. The same harness's reference run against knfsd is
# kernel-client-v4-knfsd-tcp (not in run.sh's default list: it proves the harness, not nfsbench).
# Measured on the 2-core host in a clean-clone make test: 599 s (phase 1 92 s per version, 100 MiB at
# 8 MiB/s each way); under load 4-5 (a release build and a benchmark beside it): 780 s, phase 1
# 80-115 s per version, 100 MiB at ~10 MiB/s written and ~4.5 MiB/s read back (TCG), tshark and decode 17 s.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$INTEROP_ROOT/tests/interop/lib/v4-capture-check.sh"

VM_LIMIT=1500 vm_guest bash "$INTEROP_ROOT/tests/interop/guest/kernel-client-v4.sh" "$SCEN_DIR" nfsbench tcp capture 4.1:full 4.2:full
port=$(cat "$SCEN_DIR/capture.port")
v4_capture_check "$SCEN_DIR/kernel-v4.4.1.pcap" "$port" 1 v4.1 kernel
c41=${CAPTURE_LINE#*: }
v4_capture_check "$SCEN_DIR/kernel-v4.4.2.pcap" "$port" 2 v4.2 kernel
summary "captures of the mount and phase 1: v4.1 $c41; v4.2 ${CAPTURE_LINE#*: }"
