#!/bin/bash
# bench/before-after.sh — did a change move the main job's figures? Two nfsbench binaries (before and after
# the change) each run the default `nfsbench compare` plan (embedded RAM server on loopback: tcp,
# tcp-nconnect4, rdma, rdma-2qp × 1 MiB seq read/write, 4 KiB rand read/write), in one run on one machine.
#
# Repetitions are interleaved: rep 1 runs BEFORE then AFTER, rep 2 AFTER then BEFORE, and so on, each a
# whole `compare --reps 1` (the wire baselines skipped), so slow drift of the machine falls on both sides.
# Printed per cell: the median over reps of each binary's figure (MB/s for 1 MiB, IOPS for 4 KiB), the
# median of the per-rep AFTER/BEFORE ratios with their range, and a verdict: "same" when the range holds
# 1.0, else "faster"/"slower" (with 3 reps or more). The RDMA cells run over the soft provider (no RDMA device): it stands in
# for a NIC, and this host's CPUs do its copies.
#
# usage: bench/before-after.sh BEFORE_BIN AFTER_BIN [--reps N] [--runtime DUR] [--out DIR] [-- COMPARE_ARGS...]
#   --reps N        repetitions per binary (default 4)
#   --runtime DUR   measured time per cell, compare's syntax (default 2s; ramp 500ms)
#   --out DIR       where each compare run writes (default /tmp/nfsbench-before-after-DATE)
#   -- ARGS         more `nfsbench compare` arguments, e.g. -- --cases rdma --workloads seq-read-1m
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
BEFORE=$(realpath "$1") AFTER=$(realpath "$2"); shift 2
REPS=4 RUNTIME=2s OUT=/tmp/nfsbench-before-after-$(date +%Y%m%d-%H%M%S)
while [ $# -gt 0 ]; do
  case $1 in
    --reps) REPS=${2:?--reps N}; shift 2 ;;
    --runtime) RUNTIME=${2:?--runtime DUR}; shift 2 ;;
    --out) OUT=${2:?--out DIR}; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
for b in "$BEFORE" "$AFTER"; do [ -x "$b" ] || { echo "before-after: $b is not executable" >&2; exit 2; }; done
mkdir -p "$OUT"

echo "before: $BEFORE ($(sha256sum "$BEFORE" | cut -c1-12))"
echo "after:  $AFTER ($(sha256sum "$AFTER" | cut -c1-12))"
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1), $(uname -r), $(date -u +%F)"
for rep in $(seq 1 "$REPS"); do
  order=(before after); [ $((rep % 2)) = 0 ] && order=(after before)
  for side in "${order[@]}"; do
    bin=$BEFORE; [ "$side" = after ] && bin=$AFTER
    dir=$OUT/$side-$rep
    echo "rep $rep/$REPS: $side" >&2
    "$bin" compare --no-wire --reps 1 --runtime "$RUNTIME" --ramp-time 500ms --out "$dir" "$@" > "$dir.log" 2>&1 \
      || { tail -n 20 "$dir.log" >&2; echo "before-after: $side rep $rep failed (log $dir.log)" >&2; exit 1; }
  done
done

python3 - "$OUT" "$REPS" <<'PY'
import csv, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
def figures(side, rep):
    rows = {}
    with open(f"{out}/{side}-{rep}/results.csv") as f:
        for r in csv.DictReader(f):
            metric = "MB/s" if r["metric"] == "MB/s" else "IOPS"
            rows[(r["workload"], r["case"])] = (metric, float(r["bandwidth_mbs"] if metric == "MB/s" else r["iops"]))
    return rows
before = [figures("before", i) for i in range(1, reps + 1)]
after = [figures("after", i) for i in range(1, reps + 1)]
print(f"\n{'workload':<16}{'case':<16}{'before':>12}{'after':>12}  after/before [range]      verdict")
slower = 0
for key in sorted(before[0]):
    metric = before[0][key][0]
    b = [r[key][1] for r in before]
    a = [r[key][1] for r in after]
    ratios = [x / y for x, y in zip(a, b) if y > 0]
    lo, hi, mid = min(ratios), max(ratios), statistics.median(ratios)
    if reps < 3:
        verdict = "(3 reps or more for a verdict)"
    else:
        verdict = "same" if lo <= 1.0 <= hi else ("faster" if lo > 1.0 else "slower")
    slower += verdict == "slower"
    fmt = (lambda v: f"{v:,.0f}")
    print(f"{key[0]:<16}{key[1]:<16}{fmt(statistics.median(b)):>12}{fmt(statistics.median(a)):>12}  "
          f"{mid:.2f}× [{lo:.2f}, {hi:.2f}] {metric:<5}  {verdict}")
print(f"\n{slower} cell(s) slower in every rep; RDMA cells over the soft provider (no RDMA device)")
PY
