# lab/targets/target-lib.sh — what the one-command lab targets (block-target.sh, smb-target.sh) share:
# messages, usage, the command line, the RDMA device's kind.
# shellcheck shell=bash
#
# Sourced (not run) by the scripts beside it, which first set TARGET (the name their messages start
# with) and USAGE_FROM (the header comment's first line that usage prints, default 2), and define up,
# down and status; a script with options of its own defines target_option (below). It then ends with
# `target_main "$@"`.

die() { echo "$TARGET: $*" >&2; exit 1; }
say() { echo "$TARGET: $*" >&2; }
# usage: the script's header comment from line USAGE_FROM to its end, on stderr; exit status 2.
usage() {
  awk -v from="${USAGE_FROM:-2}" 'NR >= from && !/^#/ {exit} NR >= from {sub(/^# ?/, ""); print}' "$0" >&2
  exit 2
}

# target_option ARGS...: a script's own option ($1, its value $2): sets what it means and SHIFT to the
# number of words it took; status 1 for an option it does not know. None here.
target_option() { return 1; }

# rdma_not_on_lo: --rdma with an address on lo is refused (rxe does not work there).
rdma_not_on_lo() {
  [[ $IP != 127.* ]] || die "--rdma: rxe does not work on lo; give --ip an address of the RDMA netdev"
}

# iwarp_on ADDR: true when the RDMA device on ADDR's network device is iWARP (node type 4, RNIC), whose
# listeners take ports in TCP's own port space.
iwarp_on() {
  local netdev d
  netdev=$(ip -o -4 addr show to "$1" | awk '{print $2; exit}')
  for d in /sys/class/infiniband/*; do
    [ -e "$d" ] || continue
    rdma link show "${d##*/}/1" 2>/dev/null | grep -qw "netdev $netdev" || continue
    [[ $(cat "$d/node_type") == 4:* ]] && return 0
  done
  return 1
}

# undo_failed_up: until `trap - EXIT`, an `up` that fails takes down what it made.
undo_failed_up() {
  trap 'rc=$?; [ $rc = 0 ] || { say "up failed: removing what it made"; down || true; }; exit $rc' EXIT
}

# target_main COMMAND [--ip ADDR] [--size MiB] [--rdma] [-h|--help] [the script's options]: sets IP
# (default 127.0.0.1), SIZE (256) and RDMA (0 or 1), requires root, then runs up (with ADDR an IPv4
# address and MiB a positive integer), down or status; anything else prints the usage.
# shellcheck disable=SC2034  # RDMA is read by the script's up
target_main() {
  local cmd=${1:-}
  [ $# -gt 0 ] && shift
  IP=127.0.0.1 SIZE=256 RDMA=0
  while [ $# -gt 0 ]; do
    case $1 in
      --ip) IP=${2:?--ip needs an address}; shift 2 ;;
      --size) SIZE=${2:?--size needs MiB}; shift 2 ;;
      --rdma) RDMA=1; shift ;;
      -h|--help) usage ;;
      *) target_option "$@" || { echo "$TARGET: unknown argument $1" >&2; usage; }; shift "$SHIFT" ;;
    esac
  done
  [ "$(id -u)" = 0 ] || die "run as root"

  case $cmd in
    up)
      [[ $IP =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--ip: an IPv4 address, not $IP"
      [[ $SIZE =~ ^[1-9][0-9]*$ ]] || die "--size: MiB, a positive integer, not $SIZE"
      up
      ;;
    down) down ;;
    status) status ;;
    *) usage ;;
  esac
}
