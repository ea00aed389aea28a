# tests/interop/guest/compare-lib.sh — the prelude and helpers the lab VM's `nfsbench compare` guest
# scripts share.
# shellcheck shell=bash
#
# Sourced, INSIDE the lab VM, by guest/compare.sh, guest/kernel-engine.sh, guest/kernel-engine-block.sh
# and guest/kernel-engine-smb.sh once they have set OUT (the scenario's output directory) and `here`
# (their own directory); the guest sees the host's file system, so this file is read where they are.
# Sourcing it: SCEN_DIR=$OUT, lib/common.sh, NFSBENCH checked, an EXIT trap that takes the lab target
# down (`$TARGET_SH down`, when the script sets TARGET_SH) or else stops `nfsbench serve` ($SERVER_PID)
# and keeps the kernel log in $OUT/dmesg.txt, then Soft-RoCE (lab/vm/guest/rxe.sh: $RXE_IP; RXE_PAIR=1
# set before sourcing gives the veth pair).
#
# Helpers (the caller sets what they read):
#   compare_plan NAME EXPECTED_STATUS ARGS...   `nfsbench compare PLAN_ARGS [--workloads W] --out
#       $OUT/NAME ARGS...` within PLAN_TIMEOUT s (W: PLAN_WORKLOADS, else WORKLOADS, none if both are
#       unset), stdout and stderr in $OUT/NAME.out/.err, the status checked, then `nothing_left NAME`
#       (the script's own check that the plan left no mount, session or controller behind);
#       PLAN_TITLE names it in the step line (default "nfsbench compare").
#   failed_cases NAME N          compare said "N case(s) failed" on $OUT/NAME.err.
#   check_report NAME ARGS...    python3 $here/$REPORT_CHECKER $OUT/NAME ARGS..., its output in
#       $OUT/NAME.check and shown; its last line is the reason when it fails.
#   verify_plan TITLE BASELINE < CASES     $OUT/verify.toml: TITLE, BASELINE, no wire baselines, the
#       [[case]] tables read from stdin, and the write-and-verify workload (8 MiB of 16 KiB random
#       writes at iodepth 8, fio's crc32c verify).
#   interrupt_mid_cell WHAT CELL_RUNNING LEFT ARGS...   SIGINT in the middle of a cell: `nfsbench
#       compare ARGS... --out $OUT/interrupted` in the background; once the bash condition CELL_RUNNING
#       holds (WHAT names it) and the script's `cell_is_private` (if defined) passes, 2 s later SIGINT
#       (interrupt_compare), `nothing_left "after SIGINT"`, and the summary "compare exited RC, LEFT".

export SCEN_DIR=$OUT
# shellcheck disable=SC2154  # here: set by the sourcing script
. "$here/../lib/common.sh"
[ -x "${NFSBENCH:-}" ] || fail "NFSBENCH=${NFSBENCH:-} is not an executable nfsbench binary"
trap 'rc=$?; if [ -n "${TARGET_SH:-}" ]; then "$TARGET_SH" down >/dev/null 2>&1 || true; else [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; fi; dmesg > "$OUT/dmesg.txt" 2>/dev/null; exit $rc' EXIT

. "$INTEROP_ROOT/lab/vm/guest/rxe.sh" || fail "Soft-RoCE setup (lab/vm/guest/rxe.sh) failed"

compare_plan() {
  local name=$1 want=$2 rc=0 workloads=()
  shift 2
  step "${PLAN_TITLE:-nfsbench compare}: $name"
  [ -z "${PLAN_WORKLOADS:-${WORKLOADS:-}}" ] || workloads=(--workloads "${PLAN_WORKLOADS:-$WORKLOADS}")
  tmo "$PLAN_TIMEOUT" "$NFSBENCH" compare "${PLAN_ARGS[@]}" "${workloads[@]}" --out "$OUT/$name" "$@" \
    > "$OUT/$name.out" 2> "$OUT/$name.err" || rc=$?
  cat "$OUT/$name.out"
  tail -n 5 "$OUT/$name.err"
  [ "$rc" = "$want" ] || fail "$name: nfsbench compare exited with status $rc, expected $want: $(tail -n 1 "$OUT/$name.err")"
  nothing_left "$name"
}

failed_cases() {
  local which="which cases"
  [ "$2" != 1 ] || which="which case"
  grep -q "$2 case(s) failed" "$OUT/$1.err" || fail "$1: compare did not say $which failed: $(tail -n 1 "$OUT/$1.err")"
}

check_report() {
  local name=$1; shift
  python3 "$here/$REPORT_CHECKER" "$OUT/$name" "$@" > "$OUT/$name.check" 2>&1 || {
    cat "$OUT/$name.check"; fail "$name: $(tail -n 1 "$OUT/$name.check")"; }
  cat "$OUT/$name.check"
}

verify_plan() {
  {
    printf 'title = "%s"\nbaseline = "%s"\nwire = false\n' "$1" "$2"
    cat
    cat <<'EOF'
[[workload]]
name = "write-verify"
rw = "randwrite"
bs = "16k"
iodepth = 8
numjobs = 1
size = "8m"
fio = { verify = "crc32c", do_verify = 1 }
EOF
  } > "$OUT/verify.toml"
}

interrupt_mid_cell() {
  local what=$1 running=$2 left=$3 pid rc
  shift 3
  "$NFSBENCH" compare "$@" --out "$OUT/interrupted" > "$OUT/interrupted.out" 2> "$OUT/interrupted.err" &
  pid=$!
  wait_for 120 "$what" bash -c "$running" \
    || { kill -9 "$pid"; fail "no measured cell started: $(tail -n 3 "$OUT/interrupted.err")"; }
  ! declare -F cell_is_private >/dev/null || cell_is_private
  sleep 2
  interrupt_compare "$pid" "$OUT/interrupted.err"
  nothing_left "after SIGINT"
  rc=$INTERRUPT_RC
  summary "SIGINT mid-cell: compare exited $rc, $left"
}
