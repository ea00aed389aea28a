#!/bin/bash
# bench/client-vs-fio.sh — nfsbench's own client (`nfsbench run`) against fio's nfs engine (libnfs), same
# NFS-Ganesha server, loopback, one run (issue 4).
#
# Server: one NFS-Ganesha, FSAL_VFS on a tmpfs of ours (lab/peers/ganesha.sh, own state dir and ports;
# restarted on the same files if something else stops it, noted in the report). Clients, one at a time,
# NFSv3 over TCP:
#   nfsbench  `nfsbench run` with its default client threads (half the cores, at most one per job clone)
#   fio       fio 3.33 with ioengine=nfs over libnfs, patched to drain at job end (lab/peers/fio-nfs.sh)
#   nfsb-tN   with --client-threads LIST: `nfsbench run --client-threads N` too (informational)
#   nfsb-ncN  with --nconnect LIST: `nfsbench run` with nconnect=N too (informational; fio's nfs engine
#             opens one libnfs context, so one TCP connection, per job)
# Files: 4 of --file-size, cvf.<jobnum>.0 (fio's $jobname.$jobnum.$filenum for job "cvf", nfsbench's
# default names), laid out once by `nfsbench run --rw=write` with crc32c verify, sizes checked on the
# server; every client then reads the same files (job N of a cell reads cvf.N.0).
# Cells (iodepth per job):
#   rr4k-j1 rr4k-j4   4 KiB random read, iodepth 32, 1 and 4 jobs   (IOPS; target ≥ 2× fio+libnfs)
#   sr1m              1 MiB sequential read, iodepth 8, 1 job        (bandwidth; target ≥ 1× fio+libnfs)
# Repetitions are interleaved: rep 1 runs every cell with every client, then rep 2 (client order reversed
# each rep), so slow drifts in machine load hit both clients alike; per-rep ratios pair adjacent runs.
# Every run's JSON is checked (exit status, stderr, no job error, every issued I/O completed, no short or
# dropped I/O, the whole runtime run, the expected job count); a failed run is marked, not counted.
# CPU over each run's measured window (after the ramp): client = the JSON's (usr_cpu + sys_cpu) ×
# job_runtime summed over jobs (fio: its job processes; nfsbench: each clone reports an equal share of
# the process), cross-checked by sampling the client's process tree from /proc; Ganesha = utime+stime of
# all its threads (/proc/PID/stat, every 50 ms); machine busy time (/proc/stat) minus both = other work.
#
# usage: bench/client-vs-fio.sh [--quick] [--reps N] [--runtime S] [--ramp S] [--file-size SIZE]
#          [--cells LIST] [--client-threads LIST] [--nconnect LIST] [--nfsbench PATH] [--out DIR]
#   --quick               1 rep, 3 s runtime (1 s ramp)
#   --reps N              repetitions per cell and client (default 3)
#   --runtime S           measured seconds per run (default 5); --ramp S: unmeasured warm-up (default 1)
#   --file-size SIZE      per-job file size, fio syntax (default 1g); 4 files
#   --cells LIST          comma-separated subset of the cells above (default all)
#   --client-threads LIST also run `nfsbench run --client-threads N` for each N in LIST (e.g. 1,2)
#   --nconnect LIST       also run `nfsbench run` with nconnect=N for each N in LIST (e.g. 4)
#   --nfsbench PATH       binary to test (default target/release/nfsbench; copied, so rebuilds don't matter)
#   --out DIR             output directory (default /tmp/nfsbench-client-<date>): report.txt, results.csv,
#                         machine.txt, json/ (raw JSON + stderr of every run), samples/, ganesha/ (log)
# env: FIO (a fio with the nfs engine; default from lab/peers/fio-nfs.sh), BENCH_GANESHA_NFS_PORT /
#      BENCH_GANESHA_MNT_PORT (default 33049 / 33048; nothing else may use them). Needs root (Ganesha's
#      FSAL_VFS, its tmpfs).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib/common.sh
. "$repo/bench/lib/common.sh"

# --- options -----------------------------------------------------------------------------------------
REPS=3 RUNTIME=5 RAMP=1 FILE_SIZE=1g CELLS_ARG='' THREADS_ARG='' NCONNECT_ARG='' NFSBENCH=$repo/target/release/nfsbench
OUT=/tmp/nfsbench-client-$(date +%Y%m%d-%H%M%S)
# script_option ARGS...: this script's own options (parse_options in bench/lib/common.sh takes the rest)
script_option() {
  case $1 in
    --client-threads) THREADS_ARG=${2:?--client-threads LIST} OPT_ARGS=2 ;;
    --nconnect) NCONNECT_ARG=${2:?--nconnect LIST} OPT_ARGS=2 ;;
    *) return 1 ;;
  esac
}
parse_options "$@"

# cell: name rw bs iodepth numjobs metric target label
ALL_CELLS=(
  "rr4k-j1 randread 4k 32 1 iops 2 4 KiB rand read IOPS, 1 job"
  "rr4k-j4 randread 4k 32 4 iops 2 4 KiB rand read IOPS, 4 jobs"
  "sr1m    read     1m 8  1 bw   1 1 MiB seq read bandwidth, 1 job"
)
select_cells "${ALL_CELLS[@]}"

CLIENTS=(nfsbench fio)
for t in ${THREADS_ARG//,/ }; do
  [[ $t =~ ^[1-9][0-9]*$ ]] || die "--client-threads: thread counts, not '$t'"
  CLIENTS+=("nfsb-t$t")
done
for n in ${NCONNECT_ARG//,/ }; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "--nconnect: connection counts, not '$n'"
  CLIENTS+=("nfsb-nc$n")
done

JOB=cvf      # job name, hence file names cvf.<jobnum>.0; not a directory in fio's working directory (below)
NFILES=4     # the most jobs any cell runs
FILE_BYTES=$(bytes_of "$FILE_SIZE") || die "--file-size: '$FILE_SIZE' is not a size"
TMPFS_SIZE=$(( (NFILES * FILE_BYTES) / (1 << 20) + 1024 ))m   # room for the files + 1 GiB
GANESHA_PORT=${BENCH_GANESHA_NFS_PORT:-33049}
GANESHA_MNT=${BENCH_GANESHA_MNT_PORT:-33048}

mkdir -p "$OUT"/{json,samples}
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/nfsbench-client-work.XXXXXX)
PY=$WORK/client.py

# --- the python helper: per-run row, report (sampling and JSON checks: bench/lib/benchlib.py) ---------
cat > "$PY" <<'PYEOF'
import csv, os, statistics, sys
from benchlib import (append_row, check_run, fmt_num, load_fio, paired_ratios, print_problems, read_samples,
                      run_command, spread, window_seconds)

FIELDS = ["rep", "cell", "client", "rw", "bs", "iodepth", "numjobs", "client_threads", "connections", "status", "runtime_s",
          "ios", "bytes", "iops", "bw_MBps", "lat_mean_us", "clat_p99_us", "client_cpu_s", "client_cpu_proc_s",
          "server_cpu_s", "client_cores", "server_cores", "client_us_per_io", "server_us_per_io",
          "client_cpu_s_per_GB", "server_cpu_s_per_GB", "machine_busy_cores", "other_busy_cores", "wall_s",
          "json"]
LABEL = {"nfsbench": "nfsbench run", "fio": "fio+libnfs"}

def label(c, short=False):
    if c in LABEL:
        return "ours" if short and c == "nfsbench" else LABEL[c]
    variant = ("-t%s" % c[6:]) if c.startswith("nfsb-t") else ("nc=%s" % c[7:])
    return variant if short else "nfsbench " + variant

def cmd_row(csv_path, json_path, err_path, samples_path, rep, cell, client, rw, bs, iodepth, numjobs, threads,
            rc, runtime_s):
    row = dict(rep=rep, cell=cell, client=client, rw=rw, bs=bs, iodepth=iodepth, numjobs=numjobs,
               client_threads=threads, json=json_path.rsplit("/", 1)[-1])
    tool = "fio" if client == "fio" else "nfsbench"
    # nfsbench's notes are fine on stderr; "Laying out IO file" (the files were not there) or anything else is not
    s, problems = check_run(rc, err_path, json_path, tool, rw, bs, iodepth, numjobs, runtime_s,
                            () if tool == "fio" else ("nfsbench: note:",))
    if s and s["ios"]:
        samples = read_samples(samples_path)
        t1, rt = s["end"], s["runtime"]
        t0 = t1 - rt
        srv = window_seconds(samples, 2, t0, t1)
        cli_proc = window_seconds(samples, 3, t0, t1)
        busy = window_seconds(samples, 1, t0, t1)
        if any(x[2] < 0 for x in samples):
            problems.append("Ganesha vanished during the run")
        cli, ios, nbytes = s["client_cpu"], s["ios"], s["bytes"]
        # fio's nfs engine: one libnfs context (one TCP connection) per job; nfsbench says how many it opened
        row["connections"] = numjobs if tool == "fio" else \
            load_fio(json_path).get("nfsbench", {}).get("notes", {}).get("connections", "")
        row.update(runtime_s="%.3f" % rt, ios=ios, bytes=nbytes, iops="%.1f" % s["iops"],
                   bw_MBps="%.1f" % (s["bw"] / 1e6), lat_mean_us="%.1f" % s["lat_us"],
                   clat_p99_us="%.1f" % s["p99_us"], client_cpu_s="%.3f" % cli, client_cpu_proc_s="%.3f" % cli_proc,
                   server_cpu_s="%.3f" % srv, client_cores="%.3f" % (cli / rt), server_cores="%.3f" % (srv / rt),
                   client_us_per_io="%.3f" % (cli / ios * 1e6), server_us_per_io="%.3f" % (srv / ios * 1e6),
                   client_cpu_s_per_GB="%.3f" % (cli / nbytes * 1e9), server_cpu_s_per_GB="%.3f" % (srv / nbytes * 1e9),
                   machine_busy_cores="%.3f" % (busy / rt), other_busy_cores="%.3f" % ((busy - srv - cli_proc) / rt),
                   wall_s="%.2f" % (samples[-1][0] - samples[0][0]))
    row["status"] = "ok" if not problems else "; ".join(problems)
    append_row(csv_path, FIELDS, row)
    if s and s["ios"]:
        unit = ("%8.0f IOPS" % s["iops"]) if bs == "4k" else ("%7.0f MB/s" % (s["bw"] / 1e6))
        print("  %-8s %-9s rep %s: %s  client %.2f cores (/proc %.2f)  Ganesha %.2f cores  other %.2f cores%s" % (
            cell, client, rep, unit, cli / rt, cli_proc / rt, srv / rt, (busy - srv - cli_proc) / rt,
            "" if not problems else "  !! FAILED: " + row["status"]))
    else:
        print("  %-8s %-9s rep %s: FAILED: %s" % (cell, client, rep, row["status"]))

def per_rep_ratios(rows, a, b, key):
    return paired_ratios(rows, "client", a, b, key)

def cmd_report(csv_path, clients_arg, cells_arg, reps, runtime, ramp):
    rows = list(csv.DictReader(open(csv_path)))
    clients = clients_arg.split(",")
    ours = [c for c in clients if c != "fio"]
    cells = [c.split("|") for c in cells_arg.split(";")]
    med = statistics.median
    summary = []
    for name, rw, bs, qd, nj, metric, target, title in cells:
        ok = [r for r in rows if r["cell"] == name and r["status"] == "ok"]
        by = {c: [r for r in ok if r["client"] == c] for c in clients}
        per_io = bs == "4k"
        print()
        print("== %s — %s: %s, bs %s, iodepth %s, %s job(s); %s rep(s) × %s s (+%s s ramp); median [min–max]" % (
            name, title, rw, bs, qd, nj, reps, runtime, ramp))
        print("%-30s" % "" + "".join("%-24s" % label(c) for c in clients)
              + "".join("%-22s" % ("%s/fio" % label(c, True)) for c in ours))
        metrics = [("iops", "IOPS", "iops"), ("bw_MBps", "bandwidth MB/s", "f"),
                   ("lat_mean_us", "mean latency µs", "f"), ("clat_p99_us", "p99 clat µs", "f"),
                   ("client_threads", "client threads / processes", "int"),
                   ("connections", "TCP connections", "int"),
                   ("client_cpu_s", "client CPU-s (JSON)", "f"), ("client_cpu_proc_s", "client CPU-s (/proc)", "f"),
                   ("client_cores", "client CPU (cores)", "f"),
                   ("client_us_per_io", "client CPU µs / I/O", "f") if per_io else
                   ("client_cpu_s_per_GB", "client CPU-s / GB", "f"),
                   ("server_cores", "Ganesha CPU (cores)", "f"),
                   ("server_us_per_io", "Ganesha CPU µs / I/O", "f") if per_io else
                   ("server_cpu_s_per_GB", "Ganesha CPU-s / GB", "f"),
                   ("machine_busy_cores", "machine busy (cores)", "f"), ("other_busy_cores", "other busy (cores)", "f")]
        for key, mlabel, kind in metrics:
            line = "%-30s" % mlabel
            for c in clients:
                line += "%-24s" % spread([float(r[key]) for r in by[c] if r[key] != ""], kind, med)
            if key not in ("client_threads", "connections", "machine_busy_cores", "other_busy_cores"):
                for c in ours:
                    line += "%-22s" % spread(per_rep_ratios(by[c] + by["fio"], c, "fio", key), "x", med)
            print(line)
        busy = [float(r["machine_busy_cores"]) for c in clients for r in by[c]]
        cores = os.cpu_count() or 1
        if busy:
            print("%-30s%d of %d runs had the machine's %d cores ≥ 95%% busy (Ganesha, client and other work share them)" % (
                "saturated", sum(b >= 0.95 * cores for b in busy), len(busy), cores))
        key = "iops" if metric == "iops" else "bw_MBps"
        cpu_key = "client_us_per_io" if per_io else "client_cpu_s_per_GB"
        for c in ours:
            pr = per_rep_ratios(by[c] + by["fio"], c, "fio", key)
            val = lambda who, k: med([float(r[k]) for r in by[who]]) if by[who] else None
            verdict = "-" if not pr else ("PASS" if med(pr) >= float(target) else "MISS")
            summary.append((name, label(c), title, val(c, key), val("fio", key), metric, pr, target, verdict,
                            val(c, cpu_key), val("fio", cpu_key), per_io, val(c, "server_cores"),
                            val("fio", "server_cores"), c == "nfsbench"))
    print()
    print("CPU over each run's measured window: client (JSON) = (usr_cpu + sys_cpu) × job_runtime summed over")
    print("jobs, fio's own figure (nfsbench: the process's use averaged over the whole run, ramp included, times")
    print("the measured runtime); client (/proc) = the client's process tree sampled every 50 ms; Ganesha =")
    print("utime+stime of all its threads; other busy = machine-wide busy time minus Ganesha and client (/proc):")
    print("other work on the machine (±0.1 core: tick vs. precise accounting). Ratios pair the two clients'")
    print("runs of the same rep; failed runs are left out (listed below).")
    print()
    print("== verdicts: nfsbench run / fio+libnfs, same Ganesha (median of per-rep ratios [min–max])")
    print("%-8s %-14s %-10s %-10s %-20s %-7s %-12s %-28s %s" % (
        "cell", "client", "ours", "fio", "ratio", "target", "verdict", "client CPU ours / fio", "Ganesha cores ours / fio"))
    for (name, who, title, o, f, metric, pr, target, verdict, co, cf, per_io, so, sf, main) in summary:
        kind = "iops" if metric == "iops" else "f"
        unit = "" if metric == "iops" else " MB/s"
        cpu = "-" if co is None or cf is None else "%.2f / %.2f %s" % (co, cf, "µs/IO" if per_io else "s/GB")
        print("%-8s %-14s %-10s %-10s %-20s %-7s %-12s %-28s %s" % (
            name, who, fmt_num(o, kind) + unit if o is not None else "-", fmt_num(f, kind) + unit if f is not None else "-",
            spread(pr, "x", med), "≥ %s×" % target, verdict if main else verdict.lower() + " (info)", cpu,
            "-" if so is None or sf is None else "%.2f / %.2f" % (so, sf)))
    print_problems(rows, "client", "failed runs, not counted")

if __name__ == "__main__":
    run_command({"row": cmd_row, "report": cmd_report})
PYEOF

# --- cleanup (on_exit in bench/lib/common.sh: this, the sampler, WORK) -----------------------------------
CLIENT=
EXPORT_DIR=$WORK/export   # our own tmpfs, so that a Ganesha restarted after it died serves the same files
cleanup_hook() {
  if [ -n "$CLIENT" ]; then kill -TERM "$CLIENT" 2>/dev/null; wait "$CLIENT" 2>/dev/null; fi
  if [ "$GANESHA_STARTED" = 1 ]; then
    ganesha stop >/dev/null 2>&1 || say "warning: ganesha.sh stop failed"
    GANESHA_STARTED=0
  fi
  if mountpoint -q "$EXPORT_DIR"; then umount "$EXPORT_DIR" || umount -l "$EXPORT_DIR"; fi
}
set_traps

# --- machine, tools -------------------------------------------------------------------------------------
prepare_tools $(( NFILES * FILE_BYTES )) run \
  "$REPS rep(s) × ${RUNTIME} s (+${RAMP} s ramp) per cell and client; clients ${CLIENTS[*]}; $NFILES files × $FILE_SIZE"

# --- Ganesha, and the files laid out once ----------------------------------------------------------------
# start_ganesha: Ganesha on EXPORT_DIR; sets URL and GPID
start_ganesha() {
  GANESHA_STARTED=1
  URL=$(ganesha start "$EXPORT_DIR")
  GPID=$(sed -n 's/^PID=//p' "$OUT/ganesha/ganesha.env")
  [ -n "$GPID" ] || die "no Ganesha pid in $OUT/ganesha/ganesha.env"
  url_up "$URL" || die "Ganesha does not answer"
}

# ganesha_up WHEN: Ganesha lives and answers; if not (something else on this machine stopped it: seen
# here while other sessions ran Ganesha), restart it on the same files, at most 3 times, and say so
RESTARTS=0
ganesha_up() {
  if kill -0 "$GPID" 2>/dev/null && url_up "$URL"; then return 0; fi
  RESTARTS=$((RESTARTS + 1))
  [ $RESTARTS -le 3 ] || die "Ganesha is down again before $1 (3 restarts already)"
  cp -f "$OUT/ganesha/ganesha.log" "$OUT/ganesha-died-$RESTARTS.log" 2>/dev/null || true
  echo "restart:  Ganesha (pid $GPID) was gone before $1 at $(date +%T): $(grep -v TIRPC "$OUT/ganesha-died-$RESTARTS.log" 2>/dev/null | tail -1 | cut -c1-120); restarted" \
    | tee -a "$OUT/machine.txt" >&2
  ganesha stop >/dev/null 2>&1 || true
  start_ganesha
}

mkdir -p "$EXPORT_DIR"
mount -t tmpfs -o "size=$TMPFS_SIZE,mode=1777" nfsbench-client-bench "$EXPORT_DIR"
start_ganesha
cd "$WORK"   # fio 3.33 takes the job name itself as the file name when a directory of that name is in its cwd

t0=$(date +%s.%N)
"$WORK/nfsbench" run --target "$URL" --name="$JOB" --rw=write --bs=1m --iodepth=8 --numjobs=$NFILES \
  --size="$FILE_SIZE" --verify=crc32c --do_verify=1 --eta never --output-format=json \
  --output="$OUT/json/layout.json" 2>"$OUT/json/layout.err" || { cat "$OUT/json/layout.err" >&2; die "laying out the files failed"; }
check_layout "$OUT/json/layout.json" "$FILE_BYTES" "$t0" "layout by nfsbench run on Ganesha"
for n in $(seq 0 $((NFILES - 1))); do
  f=$EXPORT_DIR/$JOB.$n.0
  [ "$(stat -c %s "$f" 2>/dev/null)" = "$FILE_BYTES" ] || die "$f on Ganesha's tmpfs is not $FILE_BYTES bytes"
done

# --- measurement: reps × cells × clients, client order reversed every rep --------------------------------
CSV=$OUT/results.csv
: > "$CSV"
# measure REP CLIENT CELL RW BS IODEPTH NUMJOBS: one client run (run_matrix in bench/lib/common.sh calls it)
measure() {
  local rep=$1 client=$2 name=$3 rw=$4 bs=$5 qd=$6 nj=$7 base=$OUT/json/r$1-$3-$2 cmd threads rc=0
  local samples=$OUT/samples/r$rep-$name-$client.txt
  local opts=(--name="$JOB" --rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$nj" --size="$FILE_SIZE"
              --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --output-format=json --output="$base.json")
  [[ $rw == rand* ]] && opts+=(--norandommap)
  case $client in
    fio) cmd=("$FIO" --ioengine=nfs --nfs_url="$URL" --filename_format="\$jobname.\$jobnum.\$filenum" "${opts[@]}")
         threads=$nj ;;
    nfsbench) cmd=("$WORK/nfsbench" run --target "$URL" --eta never "${opts[@]}")
              threads=$(( nj < $(nproc) ? nj : $(nproc) )) ;;   # its default: cores, at most one per clone
    nfsb-t*) threads=${client#nfsb-t}
             cmd=("$WORK/nfsbench" run --target "$URL" --eta never --client-threads "$threads" "${opts[@]}") ;;
    nfsb-nc*) threads=$(( nj < $(nproc) ? nj : $(nproc) ))
              cmd=("$WORK/nfsbench" run --target "$URL&nconnect=${client#nfsb-nc}" --eta never "${opts[@]}") ;;
  esac
  : > "$base.json"
  ganesha_up "$name $client rep $rep"
  rm -f "$WORK/client.pid"
  start_sampler "$samples" "$GPID" "tree:$WORK/client.pid"
  timeout -k 10 $((RAMP + RUNTIME + 90)) "${cmd[@]}" 2>"$base.err" &
  CLIENT=$!
  echo "$CLIENT" > "$WORK/client.pid"
  wait "$CLIENT" || rc=$?
  CLIENT=
  sleep 0.1
  stop_sampler
  py row "$CSV" "$base.json" "$base.err" "$samples" "$rep" "$name" "$client" "$rw" "$bs" "$qd" "$nj" \
    "$threads" "$rc" "$RUNTIME"
}
run_matrix client "${CLIENTS[@]}"

# --- report ------------------------------------------------------------------------------------------
{
  echo "== nfsbench run vs fio ioengine=nfs (libnfs), same NFS-Ganesha (VFS on tmpfs), NFSv3 over loopback TCP"
  cat "$OUT/machine.txt"
  echo "note:     absolute figures are from this $(nproc)-core machine, where client and Ganesha share the cores;"
  echo "          compare the ratios (both clients against the same server, interleaved), not the absolutes."
  py report "$CSV" "$(IFS=,; echo "${CLIENTS[*]}")" "$(cells_spec 8)" "$REPS" "$RUNTIME" "$RAMP"
  echo
  echo "files: $OUT/results.csv, $OUT/json/ (raw JSON and stderr per run), $OUT/samples/, $OUT/ganesha/ (config, log)"
} | tee "$OUT/report.txt"
