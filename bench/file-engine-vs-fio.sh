#!/bin/bash
# bench/file-engine-vs-fio.sh — nfsbench's file engine (`nfsbench run` without --target: io_uring on a
# local path) against Debian's fio with ioengine=io_uring, the same job on the same file, one run (issue 20).
#
# File: PATH/nfsbench-file-engine.dat when PATH is a directory (default /var/tmp, ext4 here; a directory
# on an NFS mount measures the kernel's NFS client), or PATH itself when it names a file; laid out once by
# fio (sequential 1 MiB writes) when shorter than --file-size, and left in place for the next run.
# Cells, both O_DIRECT (direct=1), each a size-bounded job so that both tools must move the same bytes
# in the same number of I/Os:
#   rr4k   4 KiB random read, iodepth 32, --rr-size bytes of the file (every block once: the random map)
#   sr1m   1 MiB sequential read, iodepth 8, the whole file
# Repetitions are interleaved: rep 1 runs every cell with both tools, then rep 2 with the order of the
# tools reversed, so slow drifts in the machine hit both alike.
# Per tool and cell (medians over the repetitions): bytes, I/O count, IOPS, completion latency mean,
# p50 and p99, and CPU per I/O = (usr_cpu + sys_cpu) × job_runtime / I/Os from each tool's JSON (fio:
# its job thread; nfsbench: the whole process); then the ratios ours / fio's.
#
# usage: bench/file-engine-vs-fio.sh [--check] [--reps N] [--file-size SIZE] [--rr-size SIZE]
#          [--nfsbench PATH] [--out DIR] [PATH]
#   --check          exit 1 if any repetition's bytes or I/O counts differ between the tools, or if our
#                    median IOPS is below 0.7 × fio's in a cell (CI: under a minute on 2 cores)
#   --reps N         repetitions (default 3)
#   --file-size SIZE the file's size, fio syntax (default 1g)
#   --rr-size SIZE   bytes the random-read cell reads (default 256m)
#   --nfsbench PATH  the binary (default target/release/nfsbench)
#   --out DIR        raw JSON and stderr of every run, report.txt (default /tmp/nfsbench-file-engine-<date>)
# env: FIO (default /usr/bin/fio; needs its io_uring engine).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
say() { echo "bench: $*" >&2; }
die() { say "error: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

CHECK=0 REPS=3 FILE_SIZE=1g RR_SIZE=256m NFSBENCH=$repo/target/release/nfsbench TARGET=/var/tmp
OUT=/tmp/nfsbench-file-engine-$(date +%Y%m%d-%H%M%S)
FIO=${FIO:-/usr/bin/fio}
while [ $# -gt 0 ]; do
  case $1 in
    --check) CHECK=1 ;;
    --reps) REPS=${2:?--reps N}; shift ;;
    --file-size) FILE_SIZE=${2:?--file-size SIZE}; shift ;;
    --rr-size) RR_SIZE=${2:?--rr-size SIZE}; shift ;;
    --nfsbench) NFSBENCH=${2:?--nfsbench PATH}; shift ;;
    --out) OUT=${2:?--out DIR}; shift ;;
    -h|--help) usage ;;
    -*) say "unknown option $1"; usage ;;
    *) TARGET=$1 ;;
  esac
  shift
done
[ -x "$NFSBENCH" ] || die "no nfsbench at $NFSBENCH (cargo build --release -p nfsbench)"
[ -x "$FIO" ] || die "no fio at $FIO (apt-get install fio)"
"$FIO" --enghelp 2>/dev/null | grep -qw io_uring || die "$FIO has no io_uring engine"
if [ -d "$TARGET" ]; then FILE=$TARGET/nfsbench-file-engine.dat; else FILE=$TARGET; fi
mkdir -p "$OUT/json"

bytes_of() { numfmt --from=iec "$(echo "$1" | tr '[:lower:]' '[:upper:]' | sed 's/IB$//; s/B$//')"; }
want=$(bytes_of "$FILE_SIZE")
have=$(stat -c %s "$FILE" 2>/dev/null || echo 0)
if [ "$have" -lt "$want" ]; then
  say "laying out $FILE ($FILE_SIZE) with fio"
  "$FIO" --name=layout --filename="$FILE" --rw=write --bs=1m --size="$FILE_SIZE" --ioengine=io_uring \
    --direct=1 --iodepth=8 --end_fsync=1 --output-format=json >"$OUT/json/layout.json" 2>"$OUT/json/layout.err" \
    || die "laying out $FILE failed: $(tail -1 "$OUT/json/layout.err")"
fi

# cell: name, then the job's options (the same for both tools)
CELLS=(
  "rr4k --rw=randread --bs=4k --iodepth=32 --size=$RR_SIZE"
  "sr1m --rw=read --bs=1m --iodepth=8 --size=$FILE_SIZE"
)

# run TOOL CELL REP: one run, its JSON in $OUT/json/CELL-TOOL-REP.json
run() {
  local tool=$1 cell=$2 rep=$3 name opts out
  read -r name opts <<<"$cell"
  out=$OUT/json/$name-$tool-$rep
  # shellcheck disable=SC2086 # opts are separate options on purpose
  case $tool in
    fio) "$FIO" --name="$name" --filename="$FILE" $opts --direct=1 --ioengine=io_uring \
           --output-format=json --output="$out.json" 2>"$out.err" ;;
    ours) "$NFSBENCH" run --name="$name" --filename="$FILE" $opts --direct=1 --eta never \
           --output-format=json --output "$out.json" 2>"$out.err" ;;
  esac || { say "$tool $name rep $rep failed: $(tail -1 "$out.err")"; return 1; }
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "machine: $(nproc) CPUs, $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "file: $FILE on $(findmnt -no FSTYPE,TARGET -T "$FILE" | tr -s ' ' ' ')"
  echo "fio: $("$FIO" --version)  nfsbench: $("$NFSBENCH" --version 2>/dev/null || echo "$NFSBENCH")"
} >"$OUT/machine.txt"
cat "$OUT/machine.txt" >&2

failed=0
for rep in $(seq 1 "$REPS"); do
  tools="fio ours"; [ $((rep % 2)) -eq 0 ] && tools="ours fio"
  for cell in "${CELLS[@]}"; do
    for tool in $tools; do run "$tool" "$cell" "$rep" || failed=1; done
  done
done
[ "$failed" -eq 0 ] || die "a run failed (see $OUT/json)"

python3 - "$OUT" "$REPS" "$CHECK" "${CELLS[@]%% *}" <<'PY' | tee "$OUT/report.txt"
import json, statistics, sys
out, reps, check, cells = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4:]

def figures(path):
    doc = json.load(open(path))
    job = doc["jobs"][0]
    if job.get("error", 0):
        raise SystemExit(f"{path}: job error {job['error']}")
    r = job["read"]
    pct = r["clat_ns"].get("percentile", {})
    ios = r["total_ios"]
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1e3
    return {
        "bytes": r["io_bytes"], "ios": ios, "iops": r["iops"],
        "mean": r["clat_ns"]["mean"] / 1e3,
        "p50": pct.get("50.000000", 0) / 1e3, "p99": pct.get("99.000000", 0) / 1e3,
        "cpu": cpu_s / ios * 1e6 if ios else 0.0,
    }

bad = []
print(f"{'cell':6} {'tool':5} {'bytes':>12} {'I/Os':>8} {'IOPS':>9} {'clat mean':>10} {'p50':>8} {'p99':>8} {'CPU/I/O':>8}")
print(f"{'':6} {'':5} {'':>12} {'':>8} {'':>9} {'µs':>10} {'µs':>8} {'µs':>8} {'µs':>8}")
for cell in cells:
    runs = {t: [figures(f"{out}/json/{cell}-{t}-{rep}.json") for rep in range(1, reps + 1)] for t in ("fio", "ours")}
    for rep in range(reps):
        f, o = runs["fio"][rep], runs["ours"][rep]
        if (f["bytes"], f["ios"]) != (o["bytes"], o["ios"]):
            bad.append(f"{cell} rep {rep + 1}: fio moved {f['bytes']} bytes in {f['ios']} I/Os, ours {o['bytes']} in {o['ios']}")
    med = {t: {k: statistics.median(r[k] for r in runs[t]) for k in runs[t][0]} for t in runs}
    for t in ("fio", "ours"):
        m = med[t]
        print(f"{cell:6} {t:5} {m['bytes']:>12.0f} {m['ios']:>8.0f} {m['iops']:>9.0f} {m['mean']:>10.1f} {m['p50']:>8.1f} {m['p99']:>8.1f} {m['cpu']:>8.2f}")
    ratio = lambda k: med["ours"][k] / med["fio"][k] if med["fio"][k] else float("nan")
    per_rep = [o["iops"] / f["iops"] for f, o in zip(runs["fio"], runs["ours"])]
    print(f"{cell:6} ratio ours/fio: IOPS {ratio('iops'):.2f} (per rep {', '.join(f'{x:.2f}' for x in per_rep)}), "
          f"clat mean {ratio('mean'):.2f}, p50 {ratio('p50'):.2f}, p99 {ratio('p99'):.2f}, CPU per I/O {ratio('cpu'):.2f}")
    if ratio("iops") < 0.7:
        bad.append(f"{cell}: our IOPS is {ratio('iops'):.2f} × fio's (below 0.7)")
for b in bad:
    print(f"CHECK FAILED: {b}")
if check and bad:
    sys.exit(1)
if check:
    print("check passed: same bytes and I/O counts, IOPS at least 0.7 × fio's")
PY
