#!/bin/bash
# bench/rdma-vs-tcp.sh — what RPC-over-RDMA buys over TCP with nfsbench's own client and server, one run
# (issue 6): `nfsbench serve --rdma` on loopback, `nfsbench run` over proto=tcp and over proto=rdma against
# the same RAM export, side by side, printed as RDMA/TCP ratios with CPU-seconds per GB on each side.
#
# The RDMA provider is the soft one by default (shared memory between the two processes on this host, no
# RDMA device): every report says so, since a NIC would move the copies off the CPUs.
# Server: one `nfsbench serve --export /export=mem:SIZE --rdma --rdma-provider P` (TCP and RDMA listeners of
# the same server, so the backend is the same), left running for the whole run.
# File: one of --file-size, laid out once over TCP by `nfsbench run --rw=write` with crc32c verify; every
# cell reads or overwrites that file.
# Cells (1 job each, so the client's CPU is one process's):
#   sr1m  1 MiB sequential read, iodepth 8     bandwidth   target RDMA/TCP ≥ 2.4×
#   sw1m  1 MiB sequential write, iodepth 8    bandwidth   target RDMA/TCP ≥ 1.5×
#   rr4k  4 KiB random read, iodepth 32        IOPS        target RDMA/TCP ≥ 1.9×
#   rw4k  4 KiB random write, iodepth 32       IOPS        target RDMA/TCP ≥ 1.4×
# (issue 21's targets, the shape of NetApp's RoCE study, on a 2-core host with the soft provider), and for
# each 4 KiB cell host CPU per I/O (client + server) over RDMA ≤ 0.7× TCP's.
# Repetitions are interleaved (rep 1 runs every cell over both transports, then rep 2, the transports'
# order reversed every rep); ratios pair the two adjacent runs of a rep; median of per-rep ratios [min–max].
# Every run's JSON is checked (exit status, stderr, no job error, every I/O completed, the whole runtime).
# CPU over each run's measured window (after the ramp): client = the JSON's (usr_cpu + sys_cpu) ×
# job_runtime; server = utime+stime of all its threads (/proc/PID/stat every 50 ms); both per GB moved
# and, for 4 KiB cells, per I/O. Latency spread: the completion latency's standard deviation (clat stdev).
# After the cells the server is stopped and its data-path counters over the whole run close the report:
# READ bytes it copied per byte served, and its RDMA registrations per I/O (each client run's own are in
# its JSON's notes: rdma_registrations, rdma_registrations_per_call).
#
# usage: bench/rdma-vs-tcp.sh [--quick] [--reps N] [--runtime S] [--ramp S] [--file-size SIZE] [--cells LIST]
#          [--provider soft|verbs|auto] [--rdma-inline SIZE] [--rdma-credits N] [--rdma-threads N] [--mem-size SIZE]
#          [--nfsbench PATH] [--out DIR]
#   --quick               1 rep, 3 s runtime (1 s ramp)
#   --reps N              repetitions per cell and transport (default 3)
#   --runtime S           measured seconds per run (default 5); --ramp S: unmeasured warm-up (default 1)
#   --file-size SIZE      the file's size, fio syntax (default 1g)
#   --cells LIST          comma-separated subset of the cells above (default all)
#   --provider P          the RDMA provider of client and server (default soft)
#   --rdma-inline SIZE    inline threshold of client and server (default theirs: 4 KiB)
#   --rdma-credits N      credits the client asks for and the server grants (default theirs: 128 / 64)
#   --rdma-threads N      the server's RDMA network threads (default its own: the cores, at most 4)
#   --mem-size SIZE       capacity of the RAM export (default: file size + 1 GiB, at least 2 GiB)
#   --nfsbench PATH       binary to test (default target/release/nfsbench; copied, so rebuilds don't matter)
#   --out DIR             output directory (default /tmp/nfsbench-rdma-<date>): report.txt, results.csv,
#                         machine.txt, json/ (JSON + stderr of every run), samples/, servers/ (serve's log)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib/common.sh
. "$repo/bench/lib/common.sh"

# --- options -----------------------------------------------------------------------------------------
REPS=3 RUNTIME=5 RAMP=1 FILE_SIZE=1g CELLS_ARG='' MEM_SIZE='' NFSBENCH=$repo/target/release/nfsbench
PROVIDER=soft INLINE='' CREDITS='' THREADS='' NEEDS_ROOT=0
OUT=/tmp/nfsbench-rdma-$(date +%Y%m%d-%H%M%S)
script_option() {
  case $1 in
    --provider) PROVIDER=${2:?--provider soft|verbs|auto} OPT_ARGS=2 ;;
    --rdma-inline) INLINE=${2:?--rdma-inline SIZE} OPT_ARGS=2 ;;
    --rdma-credits) CREDITS=${2:?--rdma-credits N} OPT_ARGS=2 ;;
    --rdma-threads) THREADS=${2:?--rdma-threads N} OPT_ARGS=2 ;;
    *) return 1 ;;
  esac
}
parse_options "$@"

# cell: name rw bs iodepth metric target label
ALL_CELLS=(
  "sr1m read      1m 8  bw   2.4 1 MiB seq read bandwidth"
  "sw1m write     1m 8  bw   1.5 1 MiB seq write bandwidth"
  "rr4k randread  4k 32 iops 1.9 4 KiB rand read IOPS"
  "rw4k randwrite 4k 32 iops 1.4 4 KiB rand write IOPS"
)
select_cells "${ALL_CELLS[@]}"

JOB=rvt
FILE_BYTES=$(bytes_of "$FILE_SIZE") || die "--file-size: '$FILE_SIZE' is not a size"
default_mem_size 1 "$FILE_BYTES"
RDMA_FLAGS=(--rdma-provider "$PROVIDER")
[ -z "$INLINE" ] || RDMA_FLAGS+=(--rdma-inline "$INLINE")
SERVE_FLAGS=(--rdma --rdma-listen 127.0.0.1:0 "${RDMA_FLAGS[@]}")
CLIENT_FLAGS=("${RDMA_FLAGS[@]}")
if [ -n "$CREDITS" ]; then SERVE_FLAGS+=(--rdma-credits "$CREDITS"); CLIENT_FLAGS+=(--rdma-credits "$CREDITS"); fi
[ -z "$THREADS" ] || SERVE_FLAGS+=(--rdma-threads "$THREADS")

mkdir -p "$OUT"/{json,samples}
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/nfsbench-rdma-work.XXXXXX)
PY=$WORK/rdma.py

# --- the python helper: per-run row, report ---------------------------------------------------------------
cat > "$PY" <<'PYEOF'
import csv, statistics
from benchlib import append_row, check_run, fmt_num, load_fio, paired_ratios, print_problems, read_samples, \
    run_command, spread, window_seconds

FIELDS = ["rep", "cell", "transport", "rw", "bs", "iodepth", "status", "runtime_s", "ios", "bytes", "iops",
          "bw_MBps", "lat_mean_us", "clat_stdev_us", "clat_p99_us", "client_cpu_s", "server_cpu_s",
          "client_cpu_s_per_GB", "server_cpu_s_per_GB", "client_us_per_io", "server_us_per_io", "host_us_per_io",
          "provider", "json"]
# Host CPU per 4 KiB I/O over RDMA at most this fraction of TCP's (issue 21).
CPU_TARGET = 0.7

def cmd_row(csv_path, json_path, err_path, samples_path, rep, cell, transport, rw, bs, iodepth, rc, runtime_s):
    row = dict(rep=rep, cell=cell, transport=transport, rw=rw, bs=bs, iodepth=iodepth,
               json=json_path.rsplit("/", 1)[-1])
    s, problems = check_run(rc, err_path, json_path, "nfsbench", rw, bs, iodepth, 1, runtime_s,
                            ("nfsbench: note:", "nfsbench: RPC-over-RDMA over "))
    if s and s["ios"]:
        j = load_fio(json_path)
        d = "read" if "read" in rw else "write"
        samples = read_samples(samples_path)
        t1, rt = s["end"], s["runtime"]
        srv = window_seconds(samples, 2, t1 - rt, t1)
        if any(x[2] < 0 for x in samples):
            problems.append("the server vanished during the run")
        cli, ios, nbytes = s["client_cpu"], s["ios"], s["bytes"]
        row.update(runtime_s="%.3f" % rt, ios=ios, bytes=nbytes, iops="%.1f" % s["iops"],
                   bw_MBps="%.1f" % (s["bw"] / 1e6), lat_mean_us="%.1f" % s["lat_us"],
                   clat_stdev_us="%.2f" % (j["jobs"][0][d]["clat_ns"]["stddev"] / 1e3),
                   clat_p99_us="%.1f" % s["p99_us"], client_cpu_s="%.3f" % cli, server_cpu_s="%.3f" % srv,
                   client_cpu_s_per_GB="%.3f" % (cli / nbytes * 1e9), server_cpu_s_per_GB="%.3f" % (srv / nbytes * 1e9),
                   client_us_per_io="%.3f" % (cli / ios * 1e6), server_us_per_io="%.3f" % (srv / ios * 1e6),
                   host_us_per_io="%.3f" % ((cli + srv) / ios * 1e6),
                   provider=j.get("nfsbench", {}).get("notes", {}).get("transport", ""))
    row["status"] = "ok" if not problems else "; ".join(problems)
    append_row(csv_path, FIELDS, row)
    if s and s["ios"]:
        unit = ("%8.0f IOPS" % s["iops"]) if bs == "4k" else ("%7.0f MB/s" % (s["bw"] / 1e6))
        print("  %-5s %-4s rep %s: %s  clat stdev %s µs  client %.2f / server %.2f CPU-s per GB%s" % (
            cell, transport, rep, unit, row["clat_stdev_us"], cli / nbytes * 1e9, srv / nbytes * 1e9,
            "" if not problems else "  !! FAILED: " + row["status"]))
    else:
        print("  %-5s %-4s rep %s: FAILED: %s" % (cell, transport, rep, row["status"]))

def cmd_report(csv_path, cells_arg, reps, runtime, ramp):
    rows = list(csv.DictReader(open(csv_path)))
    med = statistics.median
    cells = [c.split("|") for c in cells_arg.split(";")]
    providers = sorted({r["provider"] for r in rows if r["transport"] == "rdma" and r["provider"]})
    print()
    print("RDMA provider: %s" % (", ".join(providers) or "-"))
    if any("soft" in p for p in providers):
        print("  (the soft provider stands in for an RDMA NIC: client and server on one host, one-sided copies by")
        print("   the CPU: a memcpy into or out of the client's shared pool, process_vm_readv/writev elsewhere;")
        print("   a NIC would move them off the CPUs)")
    ok = lambda cell, t: [r for r in rows if (r["cell"], r["transport"], r["status"]) == (cell, t, "ok")]
    verdicts = []
    for name, rw, bs, qd, metric, target, title in cells:
        by = {t: ok(name, t) for t in ("tcp", "rdma")}
        per_io = bs == "4k"
        print()
        print("== %s — %s: %s, bs %s, iodepth %s, 1 job; %s rep(s) × %s s (+%s s ramp); median [min–max]" % (
            name, title, rw, bs, qd, reps, runtime, ramp))
        print("%-26s%-24s%-24s%s" % ("", "tcp", "rdma", "rdma/tcp"))
        metrics = [("iops", "IOPS", "iops"), ("bw_MBps", "bandwidth MB/s", "f"), ("lat_mean_us", "mean latency µs", "f"),
                   ("clat_stdev_us", "clat stdev µs", "f"), ("clat_p99_us", "p99 clat µs", "f"),
                   ("client_cpu_s_per_GB", "client CPU-s / GB", "f"), ("server_cpu_s_per_GB", "server CPU-s / GB", "f")]
        if per_io:
            metrics += [("client_us_per_io", "client CPU µs / I/O", "f"), ("server_us_per_io", "server CPU µs / I/O", "f"),
                        ("host_us_per_io", "host CPU µs / I/O", "f")]
        for key, label, kind in metrics:
            vals = {t: [float(r[key]) for r in by[t]] for t in by}
            ratio = paired_ratios(by["tcp"] + by["rdma"], "transport", "rdma", "tcp", key)
            print("%-26s%-24s%-24s%s" % (label, spread(vals["tcp"], kind, med), spread(vals["rdma"], kind, med),
                                         spread(ratio, "x", med)))
        key = "iops" if metric == "iops" else "bw_MBps"
        pr = paired_ratios(by["tcp"] + by["rdma"], "transport", "rdma", "tcp", key)
        verdict = "-" if not pr else ("info" if target == "-" else ("PASS" if med(pr) >= float(target) else "MISS"))
        verdicts.append((name, title, pr, "" if target == "-" else "≥ %s×" % target, verdict))
        if per_io:
            pc = paired_ratios(by["tcp"] + by["rdma"], "transport", "rdma", "tcp", "host_us_per_io")
            verdict = "-" if not pc else ("PASS" if med(pc) <= CPU_TARGET else "MISS")
            verdicts.append((name, "host CPU per I/O", pc, "≤ %s×" % CPU_TARGET, verdict))
    print()
    print("== verdicts: RDMA/TCP with nfsbench's client and server (median of per-rep ratios [min–max])")
    for name, title, pr, target, verdict in verdicts:
        print("  %-5s %-28s %-22s %-8s %s" % (name, title, spread(pr, "x", med), target, verdict))
        if pr:
            print("        RDMA is %s TCP for %s" % (fmt_num(med(pr), "x"), title))
    print_problems(rows, "transport", "failed runs, not counted")

if __name__ == "__main__":
    run_command({"row": cmd_row, "report": cmd_report})
PYEOF

# --- cleanup (on_exit in bench/lib/common.sh: this, the sampler, WORK) -----------------------------------
CLIENT=
cleanup_hook() {
  if [ -n "$CLIENT" ]; then kill -TERM "$CLIENT" 2>/dev/null; wait "$CLIENT" 2>/dev/null; fi
  stop_all_ours
}
set_traps

# --- machine, binary, server, the file -------------------------------------------------------------------
write_machine_info "$OUT/machine.txt"
check_ram "$(bytes_of "$MEM_SIZE")"
cp "$NFSBENCH" "$WORK/nfsbench"
{
  echo "nfsbench: $NFSBENCH (git $(git -C "$repo" rev-parse --short HEAD 2>/dev/null))"
  echo "plan:     $REPS rep(s) × ${RUNTIME} s (+${RAMP} s ramp) per cell and transport; provider $PROVIDER; file $FILE_SIZE; serve mem:$MEM_SIZE"
  echo "output:   $OUT"
} | tee -a "$OUT/machine.txt"
start_ours nfsbench "mem:$MEM_SIZE" "${SERVE_FLAGS[@]}"
PORT=$(port_of "${SRV_URL[nfsbench]}")
RPORT=${SRV_RDMA_PORT[nfsbench]}
[ -n "$RPORT" ] || die "nfsbench serve --rdma wrote no RDMA address to its ready file"
grep -h "RPC-over-RDMA on" "$OUT/servers/nfsbench.stderr" | tee -a "$OUT/machine.txt" || true
TARGET=127.0.0.1:/export
declare -A OPTS=([tcp]="vers=3,proto=tcp,port=$PORT,mountport=$PORT" [rdma]="vers=3,proto=rdma,port=$RPORT,mountport=$PORT")

t0=$(date +%s.%N)
"$WORK/nfsbench" run --target "$TARGET" -o "${OPTS[tcp]}" --name="$JOB" --rw=write --bs=1m --iodepth=8 \
  --size="$FILE_SIZE" --verify=crc32c --do_verify=1 --eta never --output-format=json \
  --output="$OUT/json/layout.json" 2>"$OUT/json/layout.err" || { cat "$OUT/json/layout.err" >&2; die "laying out the file failed"; }
check_layout "$OUT/json/layout.json" "$FILE_BYTES" "$t0" "layout over TCP"

# --- measurement ------------------------------------------------------------------------------------------
CSV=$OUT/results.csv
: > "$CSV"
# measure REP TRANSPORT CELL RW BS IODEPTH: one client run (run_matrix calls it with the cell's words)
measure() {
  local rep=$1 transport=$2 name=$3 rw=$4 bs=$5 qd=$6 rc=0 extra=()
  local base=$OUT/json/r$rep-$name-$transport samples=$OUT/samples/r$rep-$name-$transport.txt
  [ "$transport" = rdma ] && extra=("${CLIENT_FLAGS[@]}")
  [[ $rw == rand* ]] && extra+=(--norandommap)
  : > "$base.json"
  check_up nfsbench || die "the server is down before $name $transport rep $rep"
  rm -f "$WORK/client.pid"
  start_sampler "$samples" "${SRV_PID[nfsbench]}" "tree:$WORK/client.pid"
  timeout -k 10 $((RAMP + RUNTIME + 90)) "$WORK/nfsbench" run --target "$TARGET" -o "${OPTS[$transport]}" \
    --name="$JOB" --rw="$rw" --bs="$bs" --iodepth="$qd" --size="$FILE_SIZE" --time_based --runtime="$RUNTIME" \
    --ramp_time="$RAMP" --eta never --output-format=json --output="$base.json" "${extra[@]}" 2>"$base.err" &
  CLIENT=$!
  echo "$CLIENT" > "$WORK/client.pid"
  wait "$CLIENT" || rc=$?
  CLIENT=
  sleep 0.1
  stop_sampler
  py row "$CSV" "$base.json" "$base.err" "$samples" "$rep" "$name" "$transport" "$rw" "$bs" "$qd" "$rc" "$RUNTIME"
}
# run_matrix passes "NAME RW BS QD NJ": our cells carry metric/target where it expects numjobs; measure
# ignores them
run_matrix transport tcp rdma

stop_ours nfsbench >&2
{
  py report "$CSV" "$(cells_spec 7)" "$REPS" "$RUNTIME" "$RAMP"
  server_counters nfsbench
} | tee "$OUT/report.txt"
echo
echo "report: $OUT/report.txt  (results.csv, json/, samples/, servers/)"
