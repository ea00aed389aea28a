#!/bin/bash
# tests/interop/guest/kernel-engine-block.sh OUT — runs INSIDE the lab VM (lab/vm/run.sh), as root.
#
# The block transports through `nfsbench compare`: the guest's own initiators (nvme-cli for NVMe/TCP and
# NVMe/RDMA, open-iscsi for iSCSI and iSER) attach the RAM-disk target of lab/targets/block-target.sh on
# Soft-RoCE ($RXE_IP), and nfsbench's file engine runs the jobs on each attached device.
#   - plans/block.toml as shipped (two workloads, quick): the four cases measured, each transport proven
#     from the kernel's own state in every cell, the device moving what fio reports, the target's
#     backing devices moving at least what the report says was measured; its distance sweep (22.5 and
#     138 ms on the path, rxe on a veth pair) raising every transport's mean latency above the round
#     trip, RDMA's included, and the delay gone afterwards;
#   - a write-and-verify workload on every transport (fio's crc32c verify), verify clean;
#   - asked vs negotiated: nr_io_queues=8 on a 2-CPU guest is flagged (the kernel caps it);
#   - a target that refuses (an unknown NQN, an unknown IQN): those cases failed with the tools' words,
#     the rest measured, exit status 1;
#   - SIGINT in the middle of a cell: compare stops and nothing is left attached;
#   - after every plan: no NVMe controller, no iSCSI session, no node record.
set -euo pipefail
OUT=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Two rxe devices on a veth pair: the path to $RXE_IP leaves by nfsb1, where the plan's distance sweep
# puts its delay (a path through lo could not be delayed).
export RXE_PAIR=1
# The prelude (common.sh, the EXIT trap taking $TARGET_SH down, Soft-RoCE) and compare_plan & co.
. "$here/compare-lib.sh"
TARGET_SH=$INTEROP_ROOT/lab/targets/block-target.sh
PLAN_ARGS=(--target "$RXE_IP" --quick --reps 1 --size 8m) PLAN_TIMEOUT=500 REPORT_CHECKER=block_check.py
step "the RAM-disk target: NVMe-oF (tcp, rdma) and LIO iSCSI (tcp, iSER) on $RXE_IP"
must 120 "block-target.sh up" "$TARGET_SH" up --ip "$RXE_IP" --size 256 --rdma > "$OUT/target.txt"
cat "$OUT/target.txt"
# open-iscsi's daemon: the guest has no systemd to start it on demand.
mkdir -p /run/lock/iscsi
iscsid || fail "iscsid did not start"
wait_for 10 "iscsid" test -s /run/iscsid.pid || fail "iscsid wrote no pid file"

# Bytes the target's backing devices moved so far (read + write sectors × 512).
target_bytes() {
  local total=0 dev
  for dev in $(awk '{ print $2 }' "$OUT/target.txt" | sort -u); do
    total=$((total + $(awk '{ print ($3 + $7) * 512 }' "$dev/stat")))
  done
  echo $total
}

# nothing_left WHAT: after a plan, nothing attached and no delay left on the path.
nothing_left() {
  local what=$1
  [ -z "$(ls /sys/class/nvme 2>/dev/null)" ] || fail "$what: an NVMe controller is left: $(ls /sys/class/nvme)"
  [ -z "$(ls /sys/class/iscsi_session 2>/dev/null)" ] || fail "$what: an iSCSI session is left: $(iscsiadm -m session 2>&1)"
  ! iscsiadm -m node >/dev/null 2>&1 || fail "$what: an iSCSI node record is left: $(iscsiadm -m node 2>&1)"
  ! tc qdisc show dev nfsb1 | grep -q '4e42:' || fail "$what: the path delay is left on nfsb1: $(tc qdisc show dev nfsb1)"
}

B0=$(target_bytes)
compare_plan block 0 "$INTEROP_ROOT/plans/block.toml" --workloads seq-read-1m,rand-write-4k
B1=$(target_bytes)
check_report block $((B1 - B0)) 'iscsi:iscsi iser:iser nvme-tcp:nvme-tcp nvme-rdma:nvme-rdma'
summary "plans/block.toml: iSCSI, iSER, NVMe/TCP and NVMe/RDMA measured, transports proven from sysfs, device bytes matching fio's and the target's, each delayed by its distance sweep"

verify_plan "write and verify on every block transport, a flagged option, two refused targets" iscsi <<'EOF'
[[case]]
name = "iscsi"
kind = "iscsi"
options = "max_recv_dlength=65536,immediate_data=No"
[[case]]
name = "iser"
kind = "iser"
[[case]]
name = "nvme-tcp"
kind = "nvme-tcp"
options = "nr_io_queues=8,queue_size=64"
[[case]]
name = "nvme-rdma"
kind = "nvme-rdma"
options = "nr_io_queues=1,queue_size=32"
[[case]]
name = "nvme-unknown"
kind = "nvme-tcp"
nqn = "nqn.2026-11.io.nfsbench:nosuch"
[[case]]
name = "iscsi-unknown"
kind = "iscsi"
iqn = "iqn.2026-11.io.nfsbench:nosuch"
options = "login_retries=1,login_timeout=5"
EOF
B1=$(target_bytes)
compare_plan verify 1 "$OUT/verify.toml"
B2=$(target_bytes)
failed_cases verify 2
check_report verify $((B2 - B1)) \
  'iscsi:iscsi iser:iser nvme-tcp:nvme-tcp nvme-rdma:nvme-rdma nvme-unknown:failed:nvme-fabrics iscsi-unknown:failed:iscsiadm'
python3 - "$OUT/verify/report.json" <<'EOF' || fail "verify: asked vs negotiated: $(tail -n 1 "$OUT/verify.negotiation")"
import json, sys
cases = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
differs = cases["nvme-tcp"]["negotiation"]["differs"]
assert any(d.startswith("nr_io_queues:") for d in differs), "nr_io_queues=8 on 2 CPUs not flagged: %s" % differs
for name in ("iscsi", "iser", "nvme-rdma"):
    assert not cases[name]["negotiation"]["differs"], "%s: %s" % (name, cases[name]["negotiation"]["differs"])
print("nvme-tcp flagged: %s" % differs)
EOF
summary "write+verify clean on all four transports; nr_io_queues=8 flagged on 2 CPUs; unknown NQN and IQN failed, the rest measured"

step "SIGINT in the middle of an NVMe/RDMA cell"
interrupt_mid_cell "a measured cell on an attached controller" \
  '[ -n "$(ls /sys/class/nvme 2>/dev/null)" ] && ls '"$OUT"'/interrupted/cells/*--1.err' "nothing left attached" \
  --target "$RXE_IP" "$INTEROP_ROOT/plans/block.toml" --cases nvme-rdma --workloads seq-read-1m \
  --reps 1 --size 8m --runtime 60s --ramp-time 0s

step "bad input: an unknown case kind is named"
printf '[[case]]\nname = "x"\nkind = "fcoe"\n' > "$OUT/bad.toml"
rc=0; "$NFSBENCH" compare --target "$RXE_IP" "$OUT/bad.toml" > "$OUT/bad.out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "kind 'fcoe'" "$OUT/bad.out" || fail "unknown kind: status $rc: $(tail -n 1 "$OUT/bad.out")"

step "the target comes down clean"
"$TARGET_SH" down
[ -z "$(ls /sys/kernel/config/nvmet/subsystems 2>/dev/null)" ] || fail "block-target.sh down left an NVMe subsystem"
[ ! -e /sys/kernel/config/target/iscsi/iqn.2026-11.io.nfsbench:ram0 ] || fail "block-target.sh down left the iSCSI target"
