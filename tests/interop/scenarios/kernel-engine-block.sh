#!/bin/bash
# interop-timeout: 900
# kernel-engine-block — `nfsbench compare` with block cases: the lab VM's own initiators (nvme-cli,
# open-iscsi) attach NVMe/TCP, NVMe/RDMA, iSCSI and iSER targets of lab/targets/block-target.sh over
# Soft-RoCE; transports proven from sysfs, verify clean, bytes matching the target's, nothing left
# attached. Guest half: tests/interop/guest/kernel-engine-block.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-engine-block.sh" "$SCEN_DIR"
