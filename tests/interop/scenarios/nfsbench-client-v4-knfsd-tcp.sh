#!/bin/bash
# interop-timeout: 600
# nfsbench-client-v4-knfsd-tcp — nfsbench's own NFSv4.1 and NFSv4.2 client (`nfsbench run -o vers=4.x`)
# against the Linux 6.1 kernel NFS server (knfsd in the lab VM, TCP 2049, the tmpfs export as the v4
# pseudo-root), one VM boot for both minor versions: the study's job (jobs/transport-study.fio, 4 groups,
# numjobs 2) with verify=crc32c run to completion, checked through its JSON and knfsd's NFSv4 operation
# counters (guest half: tests/interop/lib/nfsbench-client-v4-guest.sh); each version's run captured with
# `tcpdump -s 0` and, on the host, dissected by tshark (no malformed frame, every call answered, the
# right minor version, no error status) and decoded by `nfsbench decode` (every message)
# (lib/v4-capture-check.sh). Measured on 2 cores: 182 s alone (boot 21 s, knfsd 20 s, ~57 s per version
# in the guest: the job ~18 s, tcpdump catching up ~20 s, the checks; 23 s of tshark and decode over the
# two 70 MB captures), 221 s while another VM ran.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
. "$INTEROP_ROOT/tests/interop/lib/v4-capture-check.sh"

vm_guest bash "$INTEROP_ROOT/tests/interop/lib/nfsbench-client-v4-guest.sh" "$SCEN_DIR" tcp
v4_capture_check "$SCEN_DIR/v4.1.pcap" 2049 1 v4.1
c41=${CAPTURE_LINE#*: }
v4_capture_check "$SCEN_DIR/v4.2.pcap" 2049 2 v4.2
summary "captures: v4.1 $c41; v4.2 ${CAPTURE_LINE#*: }"
