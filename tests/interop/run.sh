#!/bin/bash
# tests/interop/run.sh — nfsbench against real NFS peers (Linux kernel client in the lab VM, libnfs, fio).
#
#   tests/interop/run.sh [-l] [-o DIR] [SCENARIO...]
#
# Runs the named scenarios (default: all, in the order of ALL below), each on its own, and prints per scenario
# PASS / FAIL / SKIP with the reason and its time; on a failure also the scenario log and the guest's
# kernel log tail, and each failure's line again before the last line, which is always
# `interop: N passed, N failed, N skipped`. Exit status 0 when
# nothing failed, 1 otherwise, 2 for bad usage.
#
#   -l       list the scenarios and exit
#   -o DIR   output directory (default: target/interop/run-DATE-TIME, the newest 5 kept;
#            target/interop/latest points to it)
#
# Environment: NFSBENCH_BIN=PATH uses that nfsbench binary instead of building target/release/nfsbench
# (`cargo build --release -p nfsbench`). The binary is copied into the output directory first, so a
# rebuild during the run cannot change what is under test. Needs root or sudo (apt, the VM's mounts).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export INTEROP_ROOT; INTEROP_ROOT=$(cd "$here/../.." && pwd)
. "$here/lib/common.sh"

ALL=(kernel-client-tcp tshark-server-capture libnfs-tools fio-nfs-engine rdma-verbs-provider
     kernel-client-rdma nfsbench-client-kernel-server-tcp nfsbench-client-kernel-server-rdma
     nfsbench-client-ganesha nfsbench-client-v4-knfsd-tcp nfsbench-client-v4-knfsd-rdma nfsbench-client-v4-ganesha
     nfsbench-client-study-job nfsbench-client-nconnect nfsbench-clients-mpi
     compare-kernel-server file-engine-vs-fio kernel-engine-knfsd kernel-engine-serve kernel-engine-block
     kernel-engine-smb
     kernel-client-v4-serve-tcp kernel-client-v4-serve-rdma)
# Run by name only (not in ALL): kernel-client-v4-knfsd-tcp and kernel-client-v4-knfsd-rdma, the v4
# kernel-client harness's reference runs against knfsd (they prove the harness, not nfsbench: ~20 min).

usage() { awk 'NR > 2 && !/^#/ {exit} NR > 2 {sub(/^# ?/, ""); print}' "$0" >&2; exit 2; }

OUT=
while getopts lo:h o; do
  case $o in
    l) printf '%s\n' "${ALL[@]}"; exit 0 ;;
    o) OUT=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=("${ALL[@]}")
# Resolved now: a relative path into target/interop/latest must not follow the link this run moves.
if [ -n "${NFSBENCH_BIN:-}" ]; then
  NFSBENCH_BIN=$(realpath "$NFSBENCH_BIN") || { echo "run.sh: NFSBENCH_BIN: no such file" >&2; exit 2; }
fi
for s in "${wanted[@]}"; do
  [ -f "$here/scenarios/$s.sh" ] || { echo "run.sh: unknown scenario '$s' (run.sh -l lists them)" >&2; exit 2; }
done

if [ -z "$OUT" ]; then
  OUT=$INTEROP_ROOT/target/interop/run-$(date +%Y%m%d-%H%M%S)
  mkdir -p "$INTEROP_ROOT/target/interop"
  # Keep the newest runs only (each holds a copy of the binary and a pcap: ~40 MB).
  ls -1d "$INTEROP_ROOT"/target/interop/run-* 2>/dev/null | sort | head -n -4 | while IFS= read -r old; do
    [[ ${NFSBENCH_BIN:-} == "$old"/* ]] || rm -rf "$old"      # never the one holding NFSBENCH_BIN
  done
  ln -sfn "$(basename "$OUT")" "$INTEROP_ROOT/target/interop/latest"
fi
mkdir -p "$OUT" || exit 2
OUT=$(realpath "$OUT")
[[ $OUT != *[[:space:]]* ]] || { echo "run.sh: the output directory must not contain blanks: $OUT" >&2; exit 2; }
export INTEROP_OUT=$OUT

# --- the binary under test ------------------------------------------------------------------------
CURRENT_PGID=
on_signal() {
  [ -n "$CURRENT_PGID" ] && kill -TERM -- "-$CURRENT_PGID" 2>/dev/null
  echo "run.sh: interrupted" >&2
  exit 130
}
trap on_signal INT TERM

t_setup=$(now_ns)
setup_error() { echo "run.sh: $*" >&2; echo "$*" > "$OUT/setup-error"; return 1; }
prepare_binary() {
  local src=${NFSBENCH_BIN:-}
  if [ -z "$src" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
    if ! command -v cargo >/dev/null 2>&1; then
      "$INTEROP_ROOT/scripts/install-deps.sh" build || { setup_error "scripts/install-deps.sh build failed"; return; }
    fi
    echo "[$(ts)] building: cargo build --release -p nfsbench" >&2
    (cd "$INTEROP_ROOT" && timeout -k 5 1200 cargo build --release -p nfsbench) > "$OUT/build.log" 2>&1 \
      || { tail -n 30 "$OUT/build.log" >&2; setup_error "cargo build --release -p nfsbench failed (see $OUT/build.log)"; return; }
    src=$INTEROP_ROOT/target/release/nfsbench
  fi
  [ -x "$src" ] || { setup_error "$src is not an executable file"; return; }
  mkdir -p "$OUT/bin"
  cp "$src" "$OUT/bin/nfsbench.tmp" && mv "$OUT/bin/nfsbench.tmp" "$OUT/bin/nfsbench" \
    || { setup_error "cannot copy $src to $OUT/bin"; return; }
  "$OUT/bin/nfsbench" serve --help >/dev/null 2>&1 || { setup_error "$src has no working 'serve' subcommand"; return; }
  export NFSBENCH=$OUT/bin/nfsbench
}
setup_ok=1
prepare_binary || setup_ok=0
echo "setup: binary $([ $setup_ok = 1 ] && echo "$NFSBENCH ($(sha256sum "$NFSBENCH" | cut -c1-12))" || echo unavailable)," \
  "output $OUT, setup $(elapsed_since "$t_setup") s"

# --- the scenarios --------------------------------------------------------------------------------
passed=0 failed=0 skipped=0
declare -A VERDICT TIME
FAILURES=()
print_log() { # the scenario log (long ones: head and tail), then the guest kernel log tail if any
  local d=$1 n
  n=$(wc -l < "$d/log")
  echo "---- $2 log ($d/log, $n lines) ----"
  if [ "$n" -le 400 ]; then cat "$d/log"; else head -n 60 "$d/log"; echo "[... $((n - 360)) lines ...]"; tail -n 300 "$d/log"; fi
  local f
  for f in "$d"/dmesg*.txt; do
    [ -s "$f" ] || continue
    if grep -q 'nfsbench-interop: test starts' "$f"; then
      echo "---- guest kernel log since the test started, last 40 lines ($f) ----"
      sed -n '/nfsbench-interop: test starts/,$p' "$f" | tail -n 40
    else
      echo "---- guest kernel log, last 40 lines ($f) ----"
      tail -n 40 "$f"
    fi
  done
  echo "---- end of $2 ----"
}

for s in "${wanted[@]}"; do
  d=$OUT/$s
  rm -rf "$d"; mkdir -p "$d"
  limit=$(sed -n 's/^# interop-timeout: *\([0-9]*\).*/\1/p' "$here/scenarios/$s.sh" | head -n1)
  limit=${limit:-600}
  t0=$(now_ns)
  if [ $setup_ok = 0 ]; then
    echo "setup failed: $(cat "$OUT/setup-error" 2>/dev/null)" > "$d/reason"
    : > "$d/log"; rc=1
  else
    # Its own process group, so that a timeout or ^C ends the scenario and everything it started.
    SCEN_DIR=$d setsid bash "$here/scenarios/$s.sh" > "$d/log" 2>&1 < /dev/null &
    pid=$!
    CURRENT_PGID=$pid
    deadline=$((SECONDS + limit))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM -- "-$pid" 2>/dev/null; sleep 5; kill -KILL -- "-$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      printf 'scenario timed out after %s s\n' "$limit" > "$d/reason.timeout"
      mv -f "$d/reason.timeout" "$d/reason"
      rc=124
    else
      wait "$pid"; rc=$?
    fi
    CURRENT_PGID=
  fi
  secs=$(elapsed_since "$t0")
  TIME[$s]=$secs
  reason=$(head -n1 "$d/reason" 2>/dev/null)
  case $rc in
    0) passed=$((passed + 1)); VERDICT[$s]=PASS
       printf 'PASS  %-38s %7s s  %s\n' "$s" "$secs" "$(paste -sd';' "$d/summary" 2>/dev/null | sed 's/;/; /g')" ;;
    "$SKIP_STATUS") skipped=$((skipped + 1)); VERDICT[$s]=SKIP
       printf 'SKIP  %-38s %7s s  %s\n' "$s" "$secs" "${reason:-no reason given}" ;;
    *) failed=$((failed + 1)); VERDICT[$s]=FAIL
       line=$(printf 'FAIL  %-38s %7s s  %s' "$s" "$secs" "${reason:-exit status $rc, no reason given (see the log)}")
       FAILURES+=("$line")
       echo "$line"
       print_log "$d" "$s" ;;
  esac
done

{
  for s in "${wanted[@]}"; do printf '%s %s %s\n' "$s" "${VERDICT[$s]}" "${TIME[$s]}"; done
} > "$OUT/results.txt"
# The failures again, last, so that a reader of the output's tail (CI keeps only parts) sees each reason.
[ $failed = 0 ] || { echo "---- failed scenarios ----"; printf '%s\n' "${FAILURES[@]}"; }
echo "interop: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
