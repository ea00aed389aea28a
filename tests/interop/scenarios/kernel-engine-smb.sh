#!/bin/bash
# interop-timeout: 900
# kernel-engine-smb — `nfsbench compare` with SMB cases: the lab VM's cifs client mounts the ksmbd share of
# lab/targets/smb-target.sh over TCP and over SMB Direct on Soft-RoCE. Debian's kernels build neither
# side with SMB Direct: lab/vm/smbdirect-modules.sh builds cifs.ko and ksmbd.ko for the lab kernel on the
# host first (cached under the VM cache). Guest half: tests/interop/guest/kernel-engine-smb.sh.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
step "cifs.ko and ksmbd.ko with SMB Direct for the lab kernel (cached)"
MODULES=$(tmo 900 "$INTEROP_ROOT/lab/vm/smbdirect-modules.sh" 2> "$SCEN_DIR/modules.log") \
  || { tail -n 20 "$SCEN_DIR/modules.log"; fail "lab/vm/smbdirect-modules.sh failed: $(tail -n 1 "$SCEN_DIR/modules.log")"; }
log "modules: $MODULES"
vm_scenario bash "$INTEROP_ROOT/tests/interop/guest/kernel-engine-smb.sh" "$SCEN_DIR"
