#!/bin/bash
# interop-timeout: 600
# nfsbench-client-v4-knfsd-rdma — nfsbench's own NFSv4.1 and NFSv4.2 client over RPC-over-RDMA (Soft-RoCE
# rxe0 in the lab VM, knfsd's port 20049, nfsbench's verbs provider) against the Linux 6.1 kernel NFS
# server, one VM boot: the study's job with verify=crc32c to completion for each minor version, checked
# as in nfsbench-client-v4-knfsd-tcp (no capture: rxe traffic on one device reaches no capturable
# interface), then nconnect=4: four queue pairs on one session — `rdma resource show qp` on rxe0 lists four
# RC queue pairs of the client connected to four of knfsd's while it runs, and knfsd's counters show one
# EXCHANGE_ID and one CREATE_SESSION with the queue pairs bound by BIND_CONN_TO_SESSION (something the
# Linux 6.1 client cannot do over RDMA). Guest half: tests/interop/lib/nfsbench-client-v4-guest.sh.
# Measured on 2 cores: 171 s alone (jobs ~26 s per version), 292 s while another VM ran (boot 57 s, rxe
# and knfsd 56 s, 62 s and 57 s for the two versions, 30 s for nconnect=4).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

vm_scenario bash "$INTEROP_ROOT/tests/interop/lib/nfsbench-client-v4-guest.sh" "$SCEN_DIR" rdma nconnect4
