#!/bin/bash
# bench/server-vs-ganesha.sh — `nfsbench serve` against NFS-Ganesha on loopback, same client, one run.
#
# Client: fio with ioengine=nfs (libnfs, NFSv3; lab/peers/fio-nfs.sh). Servers, all started once and
# left idle while another one is measured (their idle CPU is recorded to show it):
#   nfsbench  `nfsbench serve --export /export=mem:SIZE` (the RAM backend; what the targets are about)
#   ganesha   NFS-Ganesha, FSAL_VFS on a tmpfs (lab/peers/ganesha.sh, own state dir and ports)
#   nfsb-dir  with --with-dir: `nfsbench serve --export /export=dir:TMPFS` (like-for-like with Ganesha)
# Cells (iodepth per job; every job its own file bench.<jobnum> of --file-size, pre-created by a
# 1 MiB write pass, same sizes on every server):
#   rr4k-j1 rr4k-j4   4 KiB random read,  iodepth 32, 1 and 4 jobs     (IOPS; target ≥ 2× Ganesha)
#   rw4k-j1 rw4k-j4   4 KiB random write, iodepth 32, 1 and 4 jobs     (IOPS; target ≥ 2× Ganesha)
#   sr1m    sw1m      1 MiB sequential read / write, iodepth 8, 1 job  (bandwidth; target ≥ 1× Ganesha)
# Repetitions are interleaved: rep 1 runs every cell on every server, then rep 2 (server order reversed
# each rep), so slow drifts in machine load hit all servers alike; per-rep ratios pair adjacent runs.
# CPU: the server's utime+stime (all threads, /proc/PID/stat) is sampled every 50 ms and taken over
# fio's measured window (after the ramp); the before/after total over the whole fio run is in the CSV
# too. Client CPU is fio's usr+sys of its job threads over the same window. Machine-wide busy time
# minus server and client ("other busy") shows load from other work on the machine.
#
# usage: bench/server-vs-ganesha.sh [--quick] [--reps N] [--runtime S] [--ramp S] [--file-size SIZE]
#          [--with-dir] [--cells LIST] [--mem-size SIZE] [--nfsbench PATH] [--out DIR]
#   --quick          1 rep, 3 s runtime (1 s ramp)
#   --reps N         repetitions per cell and server (default 3)
#   --runtime S      measured seconds per run (default 5); --ramp S: unmeasured warm-up (default 1)
#   --file-size SIZE per-job file size, fio syntax (default 1g); 4 files per server
#   --with-dir       also measure nfsbench with dir: on a tmpfs
#   --cells LIST     comma-separated subset of the cells above (default all)
#   --mem-size SIZE  capacity of the mem: export (default: 4 × file size + 1 GiB, at least 2GiB)
#   --nfsbench PATH  binary to test (default target/release/nfsbench; copied, so rebuilds don't matter)
#   --out DIR        output directory (default /tmp/nfsbench-bench-<date>): report.txt, results.csv,
#                    machine.txt, json/ (raw fio JSON + stderr), samples/, servers/ (logs, stats at exit)
# env: FIO (a fio with the nfs engine; default from lab/peers/fio-nfs.sh), BENCH_GANESHA_NFS_PORT /
#      BENCH_GANESHA_MNT_PORT (default 32049 / 32048). Needs root (Ganesha, tmpfs mounts).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

# shellcheck source=bench/lib/common.sh
. "$repo/bench/lib/common.sh"

# --- options -----------------------------------------------------------------------------------------
REPS=3 RUNTIME=5 RAMP=1 FILE_SIZE=1g WITH_DIR=0 CELLS_ARG='' MEM_SIZE='' NFSBENCH=$repo/target/release/nfsbench
OUT=/tmp/nfsbench-bench-$(date +%Y%m%d-%H%M%S)
# script_option ARGS...: this script's own options (parse_options in bench/lib/common.sh takes the rest)
script_option() {
  case $1 in
    --with-dir) WITH_DIR=1 OPT_ARGS=1 ;;
    *) return 1 ;;
  esac
}
parse_options "$@"

# cell: name rw bs iodepth numjobs metric label
ALL_CELLS=(
  "rr4k-j1 randread  4k 32 1 iops 4 KiB rand read IOPS, 1 job"
  "rr4k-j4 randread  4k 32 4 iops 4 KiB rand read IOPS, 4 jobs"
  "rw4k-j1 randwrite 4k 32 1 iops 4 KiB rand write IOPS, 1 job"
  "rw4k-j4 randwrite 4k 32 4 iops 4 KiB rand write IOPS, 4 jobs"
  "sr1m    read      1m 8  1 bw   1 MiB seq read bandwidth"
  "sw1m    write     1m 8  1 bw   1 MiB seq write bandwidth"
)
select_cells "${ALL_CELLS[@]}"
NFILES=4   # the most jobs any cell runs; every server gets the same files

FILE_BYTES=$(bytes_of "$FILE_SIZE") || die "--file-size: '$FILE_SIZE' is not a size"
default_mem_size $NFILES "$FILE_BYTES"
TMPFS_SIZE=$(( (NFILES * FILE_BYTES) / (1 << 20) + 1024 ))m   # room for the files + 1 GiB

GANESHA_PORT=${BENCH_GANESHA_NFS_PORT:-32049}
GANESHA_MNT=${BENCH_GANESHA_MNT_PORT:-32048}

mkdir -p "$OUT"/{json,samples,servers}
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/nfsbench-bench-work.XXXXXX)
PY=$WORK/bench.py

# --- the python helper: per-run row, report (sampling and JSON checks: bench/lib/benchlib.py) ---------
cat > "$PY" <<'PYEOF'
import csv, os, statistics, sys
from benchlib import (append_row, check_run, fmt_num, paired_ratios, print_problems, read_samples, run_command,
                      window_seconds)

FIELDS = ["rep", "cell", "server", "rw", "bs", "iodepth", "numjobs", "status", "runtime_s", "ios", "bytes",
          "iops", "bw_MBps", "lat_mean_us", "clat_p99_us", "client_cpu_s", "server_cpu_s", "server_cpu_total_s",
          "fio_wall_s", "server_cores", "client_cores", "server_cpu_s_per_M_io", "server_cpu_s_per_GB",
          "client_cpu_s_per_M_io", "client_cpu_s_per_GB", "machine_busy_cores", "other_busy_cores",
          "idle_servers_cpu_s", "json"]

def cmd_row(csv_path, json_path, err_path, samples_path, rep, cell, server, rw, bs, iodepth, numjobs, fio_rc,
            runtime_s, measured_idx, *idle_idx):
    row = dict(rep=rep, cell=cell, server=server, rw=rw, bs=bs, iodepth=iodepth, numjobs=numjobs,
               json=os.path.basename(json_path))
    s, problems = check_run(fio_rc, err_path, json_path, "fio", rw, bs, iodepth, numjobs, runtime_s)
    jobs = s is not None and s["runtime"] > 0
    if jobs:
        samples = read_samples(samples_path)
        ios, nbytes, runtime, client = s["ios"], s["bytes"], s["runtime"], s["client_cpu"]
        iops, bw = s["iops"], s["bw"]
        t1 = s["end"]
        t0 = t1 - runtime
        col = 2 + int(measured_idx)
        srv = window_seconds(samples, col, t0, t1)
        busy = window_seconds(samples, 1, t0, t1)
        idle = sum(window_seconds(samples, 2 + int(i), t0, t1) for i in idle_idx)
        srv_total = window_seconds(samples, col, samples[0][0], samples[-1][0])
        wall = samples[-1][0] - samples[0][0]
        if any(x[col] < 0 for x in samples):
            problems.append("server process vanished during the run")
        row.update(runtime_s="%.3f" % runtime, ios=ios, bytes=nbytes, iops="%.1f" % iops,
                   bw_MBps="%.1f" % (bw / 1e6), lat_mean_us="%.1f" % s["lat_us"], clat_p99_us="%.1f" % s["p99_us"],
                   client_cpu_s="%.3f" % client, server_cpu_s="%.3f" % srv, server_cpu_total_s="%.3f" % srv_total,
                   fio_wall_s="%.2f" % wall, server_cores="%.3f" % (srv / runtime),
                   client_cores="%.3f" % (client / runtime),
                   server_cpu_s_per_M_io="%.3f" % (srv / ios * 1e6) if ios else "",
                   server_cpu_s_per_GB="%.3f" % (srv / nbytes * 1e9) if nbytes else "",
                   client_cpu_s_per_M_io="%.3f" % (client / ios * 1e6) if ios else "",
                   client_cpu_s_per_GB="%.3f" % (client / nbytes * 1e9) if nbytes else "",
                   machine_busy_cores="%.3f" % (busy / runtime),
                   other_busy_cores="%.3f" % ((busy - srv - client - idle) / runtime),
                   idle_servers_cpu_s="%.3f" % idle)
    row["status"] = "ok" if not problems else "; ".join(problems)
    append_row(csv_path, FIELDS, row)
    # one progress line
    if jobs:
        unit = ("%8.0f IOPS" % iops) if bs == "4k" else ("%7.0f MB/s" % (bw / 1e6))
        print("  %-8s %-9s rep %s: %s  server %.2f cores  client %.2f cores  other %.2f cores%s" % (
            cell, server, rep, unit, srv / runtime, client / runtime, (busy - srv - client - idle) / runtime,
            "" if not problems else "  !! " + row["status"]))
    else:
        print("  %-8s %-9s rep %s: FAILED: %s" % (cell, server, rep, row["status"]))

def cmd_report(csv_path, servers_arg, cells_arg, reps, runtime, ramp):
    rows = list(csv.DictReader(open(csv_path)))
    servers = servers_arg.split(",")
    label = {"nfsbench": "nfsbench mem", "ganesha": "Ganesha VFS/tmpfs", "nfsb-dir": "nfsbench dir/tmpfs"}
    cells = [c.split("|") for c in cells_arg.split(";")]
    verdicts = []
    for name, rw, bs, qd, nj, metric, title in cells:
        by = {s: [r for r in rows if r["cell"] == name and r["server"] == s and r["ios"]] for s in servers}
        print()
        print("== %s — %s, bs %s, iodepth %s, %s job(s); %s rep(s) × %s s (+%s s ramp)" % (
            name, rw, bs, qd, nj, reps, runtime, ramp))
        cols = servers + [s for s in servers if s != "ganesha" and "ganesha" in servers]
        head = "%-28s" % "" + "".join("%-26s" % label[s] for s in servers)
        if "ganesha" in servers:
            head += "".join("%-13s" % ("%s/Ganesha" % ("ours" if s == "nfsbench" else "dir"))
                            for s in servers if s != "ganesha")
        print(head)
        metrics = [("iops", "IOPS", "iops"), ("bw_MBps", "bandwidth MB/s", "f"),
                   ("lat_mean_us", "mean latency µs", "f"), ("clat_p99_us", "p99 clat µs", "f"),
                   ("server_cores", "server CPU (cores)", "f"), ("server_cpu_s", "server CPU-s", "f"),
                   ("server_cpu_s_per_M_io" if bs == "4k" else "server_cpu_s_per_GB",
                    "server CPU-s / %s" % ("M I/Os" if bs == "4k" else "GB"), "f"),
                   ("client_cores", "client CPU (cores)", "f"), ("client_cpu_s", "client CPU-s", "f"),
                   ("client_cpu_s_per_M_io" if bs == "4k" else "client_cpu_s_per_GB",
                    "client CPU-s / %s" % ("M I/Os" if bs == "4k" else "GB"), "f"),
                   ("other_busy_cores", "other busy (cores)", "f")]
        for key, mlabel, kind in metrics:
            line = "%-28s" % mlabel
            means = {}
            for s in servers:
                vals = [float(r[key]) for r in by[s] if r[key] != ""]
                if not vals:
                    line += "%-26s" % "-"
                    continue
                m = statistics.mean(vals)
                means[s] = m
                cell_txt = fmt_num(m, kind)
                if len(vals) > 1:
                    cell_txt += " [%s–%s]" % (fmt_num(min(vals), kind), fmt_num(max(vals), kind))
                line += "%-26s" % cell_txt
            if "ganesha" in servers and key != "other_busy_cores":
                for s in servers:
                    if s == "ganesha":
                        continue
                    g = means.get("ganesha")
                    line += "%-13s" % (fmt_num(means[s] / g, "x") if s in means and g else "-")
            print(line)
        idle = [float(r["idle_servers_cpu_s"]) / float(r["runtime_s"]) for s in servers for r in by[s]]
        if idle:
            print("%-28s%.3f cores (max over runs)" % ("idle servers' CPU", max(idle)))
        # verdicts, ours (mem; and dir for information) against Ganesha
        key = "iops" if metric == "iops" else "bw_MBps"
        target = 2.0 if metric == "iops" else 1.0
        g = [float(r[key]) for r in by.get("ganesha", [])]
        for s in [x for x in servers if x != "ganesha"]:
            o = [float(r[key]) for r in by[s]]
            who = "nfsbench" if s == "nfsbench" else "nfsbench dir:tmpfs"
            if not o or not g:
                verdicts.append("%s: %s vs Ganesha: no result (target ≥ %g×): NOT MET" % (title, who, target))
                continue
            ratio = statistics.mean(o) / statistics.mean(g)
            pr = paired_ratios(by[s] + by["ganesha"], "server", s, "ganesha", key)
            rng = " [per-rep %.2f–%.2f]" % (min(pr), max(pr)) if len(pr) > 1 else ""
            verdicts.append("%s: %s %.2f× Ganesha (target ≥ %g×): %s%s" % (
                title, who, ratio, target, "met" if ratio >= target else "NOT MET", rng)
                + ("" if s == "nfsbench" else " (informational)"))
    print()
    print("CPU: server = utime+stime of the server process (all threads) over fio's measured window; client =")
    print("fio's usr+sys of its job threads; other busy = machine-wide busy time (/proc/stat) minus both,")
    print("i.e. other work on the machine (±0.1 core: tick vs. precise accounting); idle servers' CPU = the")
    print("servers not being measured (all stay up, one loaded at a time).")
    print()
    print("== verdicts (mean of reps, ours / Ganesha)")
    for v in verdicts:
        print(v)
    print_problems(rows, "server", "runs with problems")

if __name__ == "__main__":
    run_command({"row": cmd_row, "report": cmd_report})
PYEOF

# --- cleanup -----------------------------------------------------------------------------------------
SERVERS=()          # in start order: nfsbench ganesha [nfsb-dir]
DIR_MNT=
# on_exit in bench/lib/common.sh runs this, then stops the sampler and Ganesha and removes WORK
cleanup_hook() {
  stop_all_ours
  cp -f "$OUT/ganesha/ganesha.log" "$OUT/servers/ganesha.log" 2>/dev/null || true
  if [ -n "$DIR_MNT" ] && mountpoint -q "$DIR_MNT"; then umount "$DIR_MNT" || umount -l "$DIR_MNT"; fi
}
set_traps

# --- machine, tools -------------------------------------------------------------------------------------
prepare_tools $(( NFILES * FILE_BYTES * (2 + WITH_DIR) )) serve \
  "$REPS rep(s) × ${RUNTIME} s (+${RAMP} s ramp) per cell and server; $NFILES files × $FILE_SIZE per server; nfsbench mem:$MEM_SIZE"

# --- servers -----------------------------------------------------------------------------------------
start_ours nfsbench "mem:$MEM_SIZE"
SERVERS+=(nfsbench)
GANESHA_STARTED=1
SRV_URL[ganesha]=$(ganesha start)
SRV_PID[ganesha]=$(sed -n 's/^PID=//p' "$OUT/ganesha/ganesha.env")
[ -n "${SRV_PID[ganesha]}" ] || die "no Ganesha pid in $OUT/ganesha/ganesha.env"
SERVERS+=(ganesha)
if [ $WITH_DIR = 1 ]; then
  DIR_MNT=$WORK/dir-export
  mkdir -p "$DIR_MNT"
  mount -t tmpfs -o "size=$TMPFS_SIZE,mode=1777" nfsbench-bench-dir "$DIR_MNT"
  start_ours nfsb-dir "dir:$DIR_MNT"
  SERVERS+=(nfsb-dir)
fi
for s in "${SERVERS[@]}"; do check_up "$s" || die "$s does not answer"; done

# --- pre-create the files: a 1 MiB write pass, all files of a server in parallel ------------------------
for s in "${SERVERS[@]}"; do
  t0=$(date +%s.%N)
  if ! "$FIO" --name=precreate --ioengine=nfs --nfs_url="${SRV_URL[$s]}" --filename_format="bench.\$jobnum" \
      --size="$FILE_SIZE" --rw=write --bs=1m --iodepth=8 --numjobs=$NFILES \
      --verify=crc32c --do_verify=1 --verify_state_save=0 \
      --output-format=json --output="$OUT/json/precreate-$s.json" 2>"$OUT/json/precreate-$s.err"; then
    cat "$OUT/json/precreate-$s.err" >&2; die "pre-create on $s failed"
  fi
  check_layout "$OUT/json/precreate-$s.json" "$FILE_BYTES" "$t0" "pre-create by fio on $s"
  if [ -s "$OUT/json/precreate-$s.err" ]; then say "fio stderr during pre-create on $s:"; head -5 "$OUT/json/precreate-$s.err" >&2; fi
done
for s in "${SERVERS[@]}"; do check_files "$s" '^bench\.[0-9]+$' $NFILES "$FILE_BYTES"; done

# --- measurement: reps × cells × servers, server order reversed every rep --------------------------------
CSV=$OUT/results.csv
: > "$CSV"
ALLPIDS=()
for s in "${SERVERS[@]}"; do ALLPIDS+=("${SRV_PID[$s]}"); done
# measure REP SERVER CELL RW BS IODEPTH NUMJOBS: one fio run (run_matrix in bench/lib/common.sh calls it)
measure() {
  local rep=$1 s=$2 name=$3 rw=$4 bs=$5 qd=$6 nj=$7 base=$OUT/json/r$1-$3-$2 measured=0 idle=() i rc=0 extra=()
  if ! check_up "$s"; then
    say "$s is not running or does not answer before $name rep $rep"
    echo "fio not run: $s down" > "$base.err"; : > "$base.json"; echo "0 0" > "$OUT/samples/r$rep-$name-$s.txt"
    py row "$CSV" "$base.json" "$base.err" "$OUT/samples/r$rep-$name-$s.txt" \
      "$rep" "$name" "$s" "$rw" "$bs" "$qd" "$nj" 99 "$RUNTIME" 0 || true
    return 0
  fi
  for i in "${!SERVERS[@]}"; do
    if [ "${SERVERS[$i]}" = "$s" ]; then measured=$i; else idle+=("$i"); fi
  done
  start_sampler "$OUT/samples/r$rep-$name-$s.txt" "${ALLPIDS[@]}"
  [[ $rw == rand* ]] && extra=(--norandommap)
  timeout $((RAMP + RUNTIME + 90)) "$FIO" --name="$name" --ioengine=nfs --nfs_url="${SRV_URL[$s]}" \
    --filename_format="bench.\$jobnum" --size="$FILE_SIZE" --rw="$rw" --bs="$bs" --iodepth="$qd" \
    --numjobs="$nj" "${extra[@]}" --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" \
    --output-format=json --output="$base.json" 2>"$base.err" || rc=$?
  sleep 0.1
  stop_sampler
  py row "$CSV" "$base.json" "$base.err" "$OUT/samples/r$rep-$name-$s.txt" \
    "$rep" "$name" "$s" "$rw" "$bs" "$qd" "$nj" "$rc" "$RUNTIME" "$measured" "${idle[@]}"
}
run_matrix server "${SERVERS[@]}"

# --- stop our servers (their statistics go to stdout at SIGTERM), then the report ------------------------
stop_all_ours
servers_spec=$(IFS=,; echo "${SERVERS[*]}")
{
  echo "== nfsbench serve vs NFS-Ganesha, loopback, fio ioengine=nfs (libnfs, NFSv3)"
  cat "$OUT/machine.txt"
  py report "$CSV" "$servers_spec" "$(cells_spec 7)" "$REPS" "$RUNTIME" "$RAMP"
  echo
  echo "files: $OUT/results.csv, $OUT/json/*.json (raw fio), $OUT/servers/ (server logs; nfsbench statistics at SIGTERM)"
} | tee "$OUT/report.txt"
