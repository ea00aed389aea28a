#!/bin/bash
# lab/targets/block-target.sh — a RAM-disk NVMe-oF and iSCSI/iSER target in one command, made with the
# Linux kernel's own targets (nvmet and LIO) through configfs only: no targetcli, no nvmetcli, no
# daemon. For one machine (target and initiator on the same host) and for the lab VM (lab/vm).
#
#   block-target.sh up [--ip ADDR] [--size MiB] [--rdma]
#   block-target.sh down
#   block-target.sh status
#
# up      makes (after removing whatever an earlier `up` left behind):
#           two memory-backed null_blk devices, one for nvmet and one for LIO (each of --size MiB,
#           default 256: their pages are taken as they are written, freed by `down`);
#           nvmet subsystem nqn.2026-11.io.nfsbench:ram0, any host allowed, namespace 1 on the
#           first device, a TCP port on ADDR:4420 and, with --rdma, a second port (its own nvmet
#           port entry) RDMA ADDR:4420 (4421 on iWARP, see below);
#           LIO iSCSI target iqn.2026-11.io.nfsbench:ram0, TPG 1, LUN 0 on the second device
#           (iblock), portal ADDR:3260 for TCP and, with --rdma, iSER on that same portal (not on
#           iWARP); no authentication, demo mode (any initiator may log in, no ACLs), writable.
#         It prints, one line each on stdout, the URL the client side takes and the /sys/block
#         directory whose `stat` counts the target device's I/O:
#           nvme-tcp://ADDR:4420/NQN  /sys/block/nfsbench_nvme
#           nvme-rdma://ADDR:4420/NQN /sys/block/nfsbench_nvme      (with --rdma)
#           iscsi://ADDR:3260/IQN     /sys/block/nfsbench_iscsi
#           iser://ADDR:3260/IQN      /sys/block/nfsbench_iscsi     (with --rdma)
# down    removes everything `up` makes, also after a partial or failed `up`; nothing to remove is
#         no error. Connected initiators are cut off (disconnect/logout them first).
# status  prints the same URL lines for what exists now, then (on stderr) details: ports, the
#         initiators logged in to the iSCSI target, the devices' stat lines.
#
# ADDR (default 127.0.0.1) is an IPv4 address of this machine. --rdma needs an RDMA device on ADDR's
# network device (Soft-RoCE: `rdma link add rxe0 type rxe netdev DEV`, lab/vm/guest/rxe.sh); rxe does
# not work on lo, so not with 127.0.0.1. Run as root. Kernel modules used: null_blk, nvmet, nvmet-tcp,
# nvmet-rdma, target_core_mod, target_core_iblock, iscsi_target_mod, ib_isert (all in Debian's kernel).
#
# The initiators (not started here), as tried in lab/vm: `modprobe nvme-fabrics` first (nvme-cli
# fails with "Failed to scan topology" without it), then `nvme connect -t tcp|rdma -a ADDR -s 4420
# -n NQN`; for iSCSI a running iscsid (`iscsid` daemonizes; no systemd needed), `modprobe sd_mod`
# where no udev loads it (else the LUN gets no /dev/sdX), then `iscsiadm -m node -o new -T IQN -p
# ADDR:3260 [-I iser]` and `iscsiadm -m node -T IQN -p ADDR:3260 [-I iser] --login`.
#
# Facts this script encodes (found on Debian 12's 6.1 kernel in lab/vm):
#  - iWARP (Soft-iWARP: siw.ko, which Debian does not build) listens in TCP's own port space: nvmet's
#    RDMA port on the TCP port's ADDR:4420 fails (-98), on 4421 it serves; a LIO portal always holds
#    its ADDR:PORT for iSCSI/TCP, so isert cannot listen there (-98) and iSER is left out on iWARP.
#  - null_blk is loaded with nr_devices=0 so that only configfs devices exist. A configfs device
#    (/sys/kernel/config/nullb/NAME: size in MiB, memory_backed=1, then power=1) is named after NAME
#    on Debian's 6.1 (/dev/nfsbench_nvme, /dev/nfsbench_iscsi; the kernel logs "null_blk: disk NAME
#    created"), nullb<index> on kernels that predate that. Unlike brd (/dev/ramN), null_blk is a
#    blk-mq device with iostats=1, so /sys/block/NAME/stat counts what the initiator did: fields 3
#    and 7 are 512-byte sectors read and written (a 4 MiB direct write + verify shows +8192 each).
#    Connecting/logging in reads 24 sectors (3 reads: the initiator's partition scan).
#  - The nvmet namespace and the LIO iblock backstore each open their device exclusively: one device
#    each. nvmet's namespace uses the bdev backend (the I/O passes through the null_blk queue).
#  - nvmet TCP and RDMA ports are separate port entries (/sys/kernel/config/nvmet/ports/ID); both may
#    use ADDR:4420 (the RDMA CM's port space is not TCP's). A port starts listening when a subsystem
#    is linked into it; the link fails when ADDR is not local (or, for RDMA, has no RDMA device).
#  - LIO serves iSCSI/TCP and iSER on one portal directory np/ADDR:3260: writing 1 to its `iser`
#    attribute adds an iSER listener beside the TCP one (loads ib_isert); no second port is needed
#    (logins over both, one after the other, on the same ADDR:3260 worked).
#  - Demo mode: attrib/generate_node_acls=1, cache_dynamic_acls=1, demo_mode_write_protect=0
#    (otherwise the LUN is read-only for initiators without an ACL), authentication=0.
#  - configfs is mounted here if it is not (the lab VM's boot does not mount it). LIO logs
#    "db_root: cannot open: /etc/target" when it loads: harmless (no persistent reservations here).
#  - `down` with initiators attached works: nvme hosts go to state "connecting" (they retry for
#    ctrl_loss_tmo), iSCSI sessions to FAILED; `nvme disconnect` and `iscsiadm --logout` still end them.
set -euo pipefail

NQN=nqn.2026-11.io.nfsbench:ram0
IQN=iqn.2026-11.io.nfsbench:ram0
NVME_PORT=4420
NVME_RDMA_PORT=$NVME_PORT        # the same number in RDMA CM's port space, but on iWARP (see up)
ISER=1
ISCSI_PORT=3260
# Names of what we make in configfs, so that `down` finds it without any state file.
NULLB_NVME=nfsbench_nvme        # /sys/kernel/config/nullb/...
NULLB_ISCSI=nfsbench_iscsi
NVMET_PORT_TCP=44201            # nvmet port ids (a u16 each; only names, not TCP ports)
NVMET_PORT_RDMA=44202
LIO_HBA=iblock_4420             # /sys/kernel/config/target/core/<plugin>_<id>
LIO_DEV=nfsbench_ram0

CFS=/sys/kernel/config
NB=$CFS/nullb
NV=$CFS/nvmet
LT=$CFS/target

# die, say, usage and the command line (target_main): target-lib.sh beside this script.
TARGET=block-target USAGE_FROM=2
. "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/target-lib.sh"

# put VALUE FILE: write a configfs attribute, naming the file when the kernel refuses.
put() { printf '%s\n' "$1" > "$2" 2>/dev/null || die "cannot write '$1' to $2 (see dmesg)"; }

mount_configfs() {
  [ -d $CFS ] || modprobe configfs
  mountpoint -q $CFS || mount -t configfs none $CFS
}

# nullb_dev NAME: the /sys/block name of configfs null_blk device NAME (empty when not powered):
# NAME itself where null_blk names the disk after its configfs directory (Debian's 6.1 does), else
# nullb<index> (older kernels).
nullb_dev() {
  local d=$NB/$1
  [ -d "$d" ] && [ "$(cat "$d/power")" = 1 ] || return 0
  if [ -d "/sys/block/$1" ]; then echo "$1"; else echo "nullb$(cat "$d/index")"; fi
}

# nullb_up NAME MiB: a powered memory-backed null_blk device; prints its /sys/block name.
nullb_up() {
  local d=$NB/$1 dev i
  mkdir "$d"
  put "$2" "$d/size"
  put 1 "$d/memory_backed"
  put 1 "$d/power"
  for i in $(seq 50); do
    dev=$(nullb_dev "$1")
    [ -b "/dev/$dev" ] && { echo "$dev"; return 0; }
    sleep 0.1
  done
  die "the block device of $d did not appear in /dev (no devtmpfs or udev?)"
}

nullb_down() {
  local d=$NB/$1
  [ -d "$d" ] || return 0
  echo 0 > "$d/power" 2>/dev/null || true
  rmdir "$d"
}

# nvmet_port ID TRTYPE ADDR PORT: a port entry with our subsystem linked (the link starts the listener).
nvmet_port() {
  local p=$NV/ports/$1
  mkdir "$p"
  put ipv4 "$p/addr_adrfam"
  put "$2" "$p/addr_trtype"
  put "$3" "$p/addr_traddr"
  put "$4" "$p/addr_trsvcid"
  ln -s "$NV/subsystems/$NQN" "$p/subsystems/$NQN" 2>/dev/null ||
    die "nvmet cannot listen on $2 $3:$4 (address not local? RDMA device on it? see dmesg)"
}

nvmet_up() {  # nvmet_up DEV ADDR RDMA
  local s=$NV/subsystems/$NQN
  modprobe nvmet
  modprobe nvmet-tcp
  [ "$3" = 1 ] && modprobe nvmet-rdma
  mkdir "$s"
  put 1 "$s/attr_allow_any_host"
  mkdir "$s/namespaces/1"
  put "/dev/$1" "$s/namespaces/1/device_path"
  put 1 "$s/namespaces/1/enable"
  nvmet_port $NVMET_PORT_TCP tcp "$2" $NVME_PORT
  [ "$3" = 1 ] && nvmet_port $NVMET_PORT_RDMA rdma "$2" "$NVME_RDMA_PORT"
  return 0
}

nvmet_down() {
  local id p s=$NV/subsystems/$NQN
  [ -d $NV ] || return 0
  for id in $NVMET_PORT_TCP $NVMET_PORT_RDMA; do
    p=$NV/ports/$id
    [ -d "$p" ] || continue
    [ -L "$p/subsystems/$NQN" ] && rm "$p/subsystems/$NQN"
    rmdir "$p"
  done
  for p in "$NV"/ports/*/subsystems/"$NQN"; do   # linked into a port not ours: unlink only
    [ -L "$p" ] && rm "$p"
  done
  [ -d "$s" ] || return 0
  if [ -d "$s/namespaces/1" ]; then
    echo 0 > "$s/namespaces/1/enable" 2>/dev/null || true
    rmdir "$s/namespaces/1"
  fi
  rmdir "$s"
}

lio_up() {  # lio_up DEV ADDR RDMA
  local b=$LT/core/$LIO_HBA/$LIO_DEV t=$LT/iscsi/$IQN/tpgt_1 np
  modprobe target_core_mod
  modprobe target_core_iblock
  modprobe iscsi_target_mod
  mkdir -p "$b"
  put "udev_path=/dev/$1" "$b/control"
  put 1 "$b/enable"
  mkdir -p "$t"
  mkdir "$t/lun/lun_0"
  ln -s "$b" "$t/lun/lun_0/$LIO_DEV"
  np=$t/np/$2:$ISCSI_PORT
  mkdir "$np" 2>/dev/null || die "LIO cannot listen on $2:$ISCSI_PORT (address not local? port taken?)"
  if [ "$3" = 1 ]; then
    # iWARP listens in TCP's port space, and a LIO portal always holds its address and port for
    # iSCSI/TCP: the iSER listener cannot bind ("isert_setup_id: rdma_listen() failed: -98").
    if [ "$ISER" = 0 ]; then
      say "no iSER: the RDMA device on $2 is iWARP, whose listener would need the portal's own TCP port"
    else
      echo 1 > "$np/iser" 2>/dev/null ||
        die "LIO cannot add iSER on $2:$ISCSI_PORT (no RDMA device on that address? see dmesg)"
    fi
  fi
  put 0 "$t/attrib/authentication"
  put 1 "$t/attrib/generate_node_acls"
  put 1 "$t/attrib/cache_dynamic_acls"
  put 0 "$t/attrib/demo_mode_write_protect"
  put 1 "$t/enable"
}

lio_down() {
  local t=$LT/iscsi/$IQN/tpgt_1 x
  if [ -d "$t" ]; then
    echo 0 > "$t/enable" 2>/dev/null || true      # ends the sessions
    for x in "$t"/np/*; do
      [ -d "$x" ] || continue
      [ -f "$x/iser" ] && { echo 0 > "$x/iser" 2>/dev/null || true; }
      rmdir "$x"
    done
    for x in "$t"/lun/lun_*; do
      [ -d "$x" ] || continue
      find "$x" -maxdepth 1 -type l -exec rm {} +
      rmdir "$x"
    done
    for x in "$t"/acls/*; do [ -d "$x" ] && rmdir "$x"; done
    rmdir "$t"
  fi
  [ -d "$LT/iscsi/$IQN" ] && rmdir "$LT/iscsi/$IQN"
  [ -d "$LT/core/$LIO_HBA/$LIO_DEV" ] && rmdir "$LT/core/$LIO_HBA/$LIO_DEV"
  [ -d "$LT/core/$LIO_HBA" ] && rmdir "$LT/core/$LIO_HBA"
  return 0
}

down() {
  [ -d $CFS ] && mountpoint -q $CFS || return 0
  lio_down
  nvmet_down
  [ -d $NB ] || return 0
  nullb_down $NULLB_NVME
  nullb_down $NULLB_ISCSI
}

# urls: one line per listener that exists: URL and the /sys/block directory of its device.
urls() {
  local p tr a dev np
  dev=$(nullb_dev $NULLB_NVME)
  for p in $NVMET_PORT_TCP $NVMET_PORT_RDMA; do
    p=$NV/ports/$p
    [ -L "$p/subsystems/$NQN" ] || continue
    tr=$(cat "$p/addr_trtype") a=$(cat "$p/addr_traddr")
    echo "nvme-$tr://$a:$(cat "$p/addr_trsvcid")/$NQN /sys/block/$dev"
  done
  dev=$(nullb_dev $NULLB_ISCSI)
  [ "$(cat "$LT/iscsi/$IQN/tpgt_1/enable" 2>/dev/null)" = 1 ] || return 0
  for np in "$LT/iscsi/$IQN/tpgt_1"/np/*; do
    [ -d "$np" ] || continue
    echo "iscsi://${np##*/}/$IQN /sys/block/$dev"
    [ "$(cat "$np/iser" 2>/dev/null)" = 1 ] && echo "iser://${np##*/}/$IQN /sys/block/$dev"
  done
  return 0
}

status() {
  local d
  [ -d $CFS ] && mountpoint -q $CFS || { say "configfs not mounted: nothing is up"; return 0; }
  urls
  {
    for d in $NULLB_NVME $NULLB_ISCSI; do
      [ -n "$(nullb_dev $d)" ] && echo "$d: /sys/block/$(nullb_dev $d)/stat: $(cat /sys/block/"$(nullb_dev $d)"/stat)"
    done
    d=$LT/iscsi/$IQN/tpgt_1/dynamic_sessions
    [ -f "$d" ] && echo "iSCSI initiators logged in: $(tr '\0\n' '  ' < "$d")"
    true
  } >&2
}

# up: the checks of its options, then (after `down`) the devices, nvmet and LIO; prints the URL lines.
up() {
  if [ $RDMA = 1 ]; then
    rdma_not_on_lo
    ls /sys/class/infiniband/* >/dev/null 2>&1 || die "--rdma: no RDMA device (Soft-RoCE: rdma link add rxe0 type rxe netdev DEV)"
    # iWARP (Soft-iWARP, siw) shares TCP's port space: nvmet-tcp holds 4420, so RDMA takes the next.
    if iwarp_on "$IP"; then
      NVME_RDMA_PORT=$((NVME_PORT + 1)) ISER=0
      say "iWARP on $IP: NVMe/RDMA on port $NVME_RDMA_PORT"
    fi
  fi
  mount_configfs
  down
  # If up fails half-way, take down what it made.
  undo_failed_up
  [ -d /sys/module/null_blk ] || modprobe null_blk nr_devices=0
  [ -d $NB ] || die "null_blk has no configfs directory $NB"
  dn=$(nullb_up $NULLB_NVME "$SIZE")
  di=$(nullb_up $NULLB_ISCSI "$SIZE")
  nvmet_up "$dn" "$IP" $RDMA
  lio_up "$di" "$IP" $RDMA
  trap - EXIT
  urls
}

target_main "$@"
