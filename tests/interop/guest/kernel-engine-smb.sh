#!/bin/bash
# tests/interop/guest/kernel-engine-smb.sh OUT — runs INSIDE the lab VM (lab/vm/run.sh), as root.
#
# SMB3 through `nfsbench compare`: the guest's cifs client (built with SMB Direct by
# lab/vm/smbdirect-modules.sh on the host) mounts the ksmbd share of lab/targets/smb-target.sh over TCP
# and over SMB Direct on Soft-RoCE ($RXE_IP), and nfsbench's file engine runs the jobs on each mount.
#   - plans/smb-direct.toml (quick, 2 MiB files): SMB3 over TCP, SMB Direct, SMB Direct with
#     two channels; the transport proven from /proc/fs/cifs/DebugData in every cell (an SMBDirect
#     section or none), dialect 3.1.1, the share's counters covering what fio reports, the RDMA
#     device's packet counters moving for the SMB Direct cases only (ksmbd keeps no byte counters);
#   - write and verify over both transports, verify clean;
#   - a share the server does not have and an option the kernel refuses (nconnect, not in 6.1's cifs):
#     those cases failed with mount.cifs's words, the rest measured, exit status 1;
#   - SIGINT in the middle of a cell: compare stops and no cifs mount is left.
set -euo pipefail
OUT=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The prelude (common.sh, the EXIT trap taking $TARGET_SH down, Soft-RoCE) and compare_plan & co.
. "$here/compare-lib.sh"
TARGET_SH=$INTEROP_ROOT/lab/targets/smb-target.sh
PLAN_ARGS=(--target "$RXE_IP" --quick --reps 1) PLAN_TIMEOUT=500 REPORT_CHECKER=smb_check.py
step "ksmbd on a RAM share, TCP and SMB Direct on $RXE_IP"
must 120 "smb-target.sh up" "$TARGET_SH" up --ip "$RXE_IP" --rdma --multichannel --size 256 > "$OUT/target.txt"
cat "$OUT/target.txt"
# mount.cifs takes the credentials from the environment: none in a plan, a command line or a report.
export USER=nfsbench PASSWD=nfsbench

# nothing_left WHAT: no cifs mount, session or mount point left after a plan.
nothing_left() {
  local what=$1 deadline=$((SECONDS + 30))
  until ! grep -q ' cifs ' /proc/mounts && ! grep -q '\\bench' /proc/fs/cifs/DebugData 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "$what: a cifs mount or session is left 30 s after the run: $(grep cifs /proc/mounts)"
    sleep 0.2
  done
  ! ls -d /tmp/nfsbench-mnt-* 2>/dev/null || fail "$what: a mount point directory was left in /tmp"
}
cell_is_private() { ! grep -q ' cifs ' /proc/mounts || fail "the kernel engine's cifs mount is visible outside its private namespace"; }
rdma_packets() { cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts; }

# The shipped plan with 2 MiB files instead of 64 MiB, 4 jobs instead of 16 and without its distance
# sweep. With 16 jobs opening their files at once, the lab's ksmbd (Debian 6.1.192's) oopsed in smb2_open
# (list corruption adding an open file to its inode's list) in 3 runs in a row on 2026-11-28, after
# passing 5 before; with 4 jobs 3 of 3 passed. The sweep is left out because the path to $RXE_IP here
# goes through lo, which carries no delay (the block scenario proves the delay on a veth pair; over that
# pair a two-channel SMB Direct mount's I/O hung in this lab, which is not understood yet).
sed -e 's/^size = "64m"/size = "2m"/' -e 's/^numjobs = 16$/numjobs = 4/' -e '/^\[\[sweep\]\]/,$d' \
  "$INTEROP_ROOT/plans/smb-direct.toml" > "$OUT/smb-direct.toml"
grep -q '^size = "2m"' "$OUT/smb-direct.toml" || fail "plans/smb-direct.toml no longer has size = \"64m\""
grep -q '^numjobs = 4$' "$OUT/smb-direct.toml" || fail "plans/smb-direct.toml no longer has numjobs = 16"
! grep -q '^\[\[sweep' "$OUT/smb-direct.toml" || fail "the sweep is still in the lab's copy of plans/smb-direct.toml"
compare_plan direct 0 "$OUT/smb-direct.toml"
check_report direct 'smb:tcp:1 smb-direct:rdma:1 smb-direct-2ch:rdma:2'
summary "plans/smb-direct.toml: SMB3 over TCP, SMB Direct and SMB Direct on 2 channels measured, transports proven from DebugData, the share's counters covering fio's"

step "the RDMA device carries the SMB Direct cases only"
P0=$(rdma_packets)
compare_plan tcp-only 0 "$OUT/smb-direct.toml" --cases smb
P1=$(rdma_packets)
compare_plan rdma-only 0 "$OUT/smb-direct.toml" --cases smb-direct
P2=$(rdma_packets)
[ $((P1 - P0)) -lt 100 ] || fail "SMB over TCP moved $((P1 - P0)) packets on rxe0"
[ $((P2 - P1)) -gt 1000 ] || fail "SMB Direct moved only $((P2 - P1)) packets on rxe0"
summary "rxe0 sent $((P1 - P0)) packets for SMB over TCP, $((P2 - P1)) for SMB Direct"

verify_plan "write and verify over SMB3 and SMB Direct, a missing share, an option 6.1 does not have" smb <<'EOF'
[[case]]
name = "smb"
kind = "smb"
options = "vers=3.1.1"
[[case]]
name = "smb-direct"
kind = "smb"
options = "vers=3.1.1,rdma"
[[case]]
name = "no-share"
kind = "smb"
share = "nosuch"
options = "vers=3.1.1"
[[case]]
name = "nconnect"
kind = "smb"
options = "vers=3.1.1,nconnect=2"
EOF
compare_plan verify 1 "$OUT/verify.toml"
failed_cases verify 2
check_report verify 'smb:tcp:1 smb-direct:rdma:1 no-share:failed:BAD_NETWORK_NAME nconnect:failed:Unknown'
summary "write+verify clean over SMB3 and SMB Direct; a missing share and nconnect failed with mount.cifs's and the kernel's words, the rest measured"

step "SIGINT in the middle of an SMB Direct cell"
interrupt_mid_cell "a measured cell on a cifs mount" \
  'grep -q " cifs " /proc/*/mounts 2>/dev/null && ls '"$OUT"'/interrupted/cells/*--1.err' "no cifs mount or session left" \
  --target "$RXE_IP" "$OUT/smb-direct.toml" --cases smb-direct --reps 1 --runtime 60s --ramp-time 0s

step "the share comes down clean"
"$TARGET_SH" down
