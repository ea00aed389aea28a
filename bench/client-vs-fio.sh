#!/bin/bash
# bench/client-vs-fio.sh — nfsbench's own client (`nfsbench run`) against fio's nfs engine (libnfs), same
# server, loopback, one run (issue 4); against NFS-Ganesha and against `nfsbench serve`.
#
# Servers, each started once and left idle while the other one is measured (their idle CPU is recorded):
#   ganesha   NFS-Ganesha, FSAL_VFS on a tmpfs of ours (lab/peers/ganesha.sh, own state dir and ports;
#             restarted on the same files if something else stops it, noted in the report). Where the
#             issue's targets are judged; on a small machine it is the bottleneck for either client.
#   nfsbench  `nfsbench serve --export /export=mem:SIZE` (the RAM backend) on a free port: a cheap server,
#             so the client's CPU per I/O decides the IOPS (informational)
# Clients, one at a time, NFSv3 over TCP:
#   nfsbench  `nfsbench run` with its default client threads (half the cores, at most one per job clone)
#   fio       fio 3.33 with ioengine=nfs over libnfs, patched to drain at job end (lab/peers/fio-nfs.sh)
#   nfsb-tN   with --client-threads LIST: `nfsbench run --client-threads N` too (informational)
#   nfsb-ncN  with --nconnect LIST: `nfsbench run` with nconnect=N too (informational; fio's nfs engine
#             opens one libnfs context, so one TCP connection, per job)
#   nfsb-before  with --before BIN: `nfsbench run` of another build (the one before a change), the same
#             options, in the same interleaved reps: a before/after of our client beside fio in one run
# Files, on every server alike: 4 of --file-size, cvf.<jobnum>.0 (fio's $jobname.$jobnum.$filenum for job
# "cvf", nfsbench's default names), laid out once by `nfsbench run --rw=write` with crc32c verify, sizes
# checked by nfs-ls (and on Ganesha's tmpfs); every client then reads the same files (job N of a cell
# reads cvf.N.0).
# Cells (iodepth per job):
#   rr4k-j1 rr4k-j4   4 KiB random read, iodepth 32, 1 and 4 jobs   (IOPS; target ≥ 2× fio+libnfs)
#   sr1m              1 MiB sequential read, iodepth 8, 1 job        (bandwidth; target ≥ 1× fio+libnfs)
# Repetitions are interleaved: rep 1 runs every cell with every client on every server, then rep 2 (the
# server/client order reversed each rep), so slow drifts in machine load hit both clients alike; per-rep
# ratios pair the two clients' runs on the same server, which are adjacent.
# Every run's JSON is checked (exit status, stderr, no job error, every issued I/O completed, no short or
# dropped I/O, the whole runtime run, the expected job count); a failed run is marked, not counted.
# CPU over each run's measured window (after the ramp): client = the JSON's (usr_cpu + sys_cpu) ×
# job_runtime summed over jobs (fio: its job processes; nfsbench: each clone reports an equal share of
# the process), cross-checked by sampling the client's process tree from /proc; server = utime+stime of
# all its threads (/proc/PID/stat, every 50 ms); machine busy time (/proc/stat) minus the server, the
# client and the idle server = other work.
#
# usage: bench/client-vs-fio.sh [--quick] [--reps N] [--runtime S] [--ramp S] [--file-size SIZE]
#          [--cells LIST] [--server LIST] [--client-threads LIST] [--nconnect LIST] [--mem-size SIZE]
#          [--before BIN] [--nfsbench PATH] [--out DIR]
#   --quick               1 rep, 3 s runtime (1 s ramp)
#   --reps N              repetitions per cell, server and client (default 3)
#   --runtime S           measured seconds per run (default 5); --ramp S: unmeasured warm-up (default 1)
#   --file-size SIZE      per-job file size, fio syntax (default 1g); 4 files per server
#   --cells LIST          comma-separated subset of the cells above (default all)
#   --server LIST         comma-separated servers of the above (default ganesha,nfsbench)
#   --client-threads LIST also run `nfsbench run --client-threads N` for each N in LIST (e.g. 1,2)
#   --nconnect LIST       also run `nfsbench run` with nconnect=N for each N in LIST (e.g. 4)
#   --before BIN          also run `nfsbench run` of the binary BIN (copied; the servers stay --nfsbench's)
#   --mem-size SIZE       capacity of nfsbench serve's mem: export (default: 4 × file size + 1 GiB, ≥ 2GiB)
#   --nfsbench PATH       binary to test, client and server (default target/release/nfsbench; copied, so
#                         rebuilds don't matter)
#   --out DIR             output directory (default /tmp/nfsbench-client-<date>): report.txt, results.csv,
#                         machine.txt, json/ (raw JSON + stderr of every run), samples/, ganesha/ (log),
#                         servers/ (nfsbench serve's log; its statistics at exit)
# env: FIO (a fio with the nfs engine; default from lab/peers/fio-nfs.sh), BENCH_GANESHA_NFS_PORT /
#      BENCH_GANESHA_MNT_PORT (default 33049 / 33048; nothing else may use them). Needs root (Ganesha's
#      FSAL_VFS, its tmpfs).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib/common.sh
. "$repo/bench/lib/common.sh"

# --- options -----------------------------------------------------------------------------------------
REPS=3 RUNTIME=5 RAMP=1 FILE_SIZE=1g CELLS_ARG='' SERVER_ARG=ganesha,nfsbench THREADS_ARG='' NCONNECT_ARG=''
MEM_SIZE='' NFSBENCH=$repo/target/release/nfsbench BEFORE=''
OUT=/tmp/nfsbench-client-$(date +%Y%m%d-%H%M%S)
# script_option ARGS...: this script's own options (parse_options in bench/lib/common.sh takes the rest)
script_option() {
  case $1 in
    --server) SERVER_ARG=${2:?--server LIST} OPT_ARGS=2 ;;
    --client-threads) THREADS_ARG=${2:?--client-threads LIST} OPT_ARGS=2 ;;
    --nconnect) NCONNECT_ARG=${2:?--nconnect LIST} OPT_ARGS=2 ;;
    --before) BEFORE=${2:?--before BIN} OPT_ARGS=2 ;;
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

SERVERS=()
for s in ganesha nfsbench; do if [[ ,$SERVER_ARG, == *,$s,* ]]; then SERVERS+=("$s"); fi; done
for s in ${SERVER_ARG//,/ }; do
  [[ $s == ganesha || $s == nfsbench ]] || die "--server: ganesha or nfsbench, not '$s'"
done
[ ${#SERVERS[@]} -gt 0 ] || die "--server: ganesha, nfsbench or both"
on() { [[ " ${SERVERS[*]} " == *" $1 "* ]]; }   # on SERVER: SERVER is measured

CLIENTS=(nfsbench fio)
for t in ${THREADS_ARG//,/ }; do
  [[ $t =~ ^[1-9][0-9]*$ ]] || die "--client-threads: thread counts, not '$t'"
  CLIENTS+=("nfsb-t$t")
done
for n in ${NCONNECT_ARG//,/ }; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || die "--nconnect: connection counts, not '$n'"
  CLIENTS+=("nfsb-nc$n")
done
if [ -n "$BEFORE" ]; then
  [ -x "$BEFORE" ] || die "--before: no nfsbench binary at $BEFORE"
  CLIENTS+=("nfsb-before")
fi

JOB=cvf      # job name, hence file names cvf.<jobnum>.0; not a directory in fio's working directory (below)
NFILES=4     # the most jobs any cell runs
FILE_BYTES=$(bytes_of "$FILE_SIZE") || die "--file-size: '$FILE_SIZE' is not a size"
TMPFS_SIZE=$(( (NFILES * FILE_BYTES) / (1 << 20) + 1024 ))m   # room for the files + 1 GiB
default_mem_size $NFILES "$FILE_BYTES"
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

FIELDS = ["rep", "server", "cell", "client", "rw", "bs", "iodepth", "numjobs", "client_threads", "connections", "status",
          "runtime_s", "ios", "bytes", "iops", "bw_MBps", "lat_mean_us", "clat_p99_us", "client_cpu_s",
          "client_cpu_proc_s", "server_cpu_s", "client_cores", "server_cores", "client_us_per_io", "server_us_per_io",
          "client_cpu_s_per_GB", "server_cpu_s_per_GB", "machine_busy_cores", "idle_server_cores", "other_busy_cores",
          "wall_s", "json"]
LABEL = {"nfsbench": "nfsbench run", "fio": "fio+libnfs"}
SERVER = {"ganesha": "NFS-Ganesha (VFS on tmpfs)", "nfsbench": "nfsbench serve (mem)"}
SHORT = {"ganesha": "Ganesha", "nfsbench": "serve"}
JUDGED = "ganesha"   # the server the issue's targets are judged on; the others are informational

def label(c, short=False):
    if c in LABEL:
        return "ours" if short and c == "nfsbench" else LABEL[c]
    if c == "nfsb-before":
        return "before" if short else "nfsbench before"
    variant = ("-t%s" % c[6:]) if c.startswith("nfsb-t") else ("nc=%s" % c[7:])
    return variant if short else "nfsbench " + variant

def cmd_row(csv_path, json_path, err_path, samples_path, rep, server, cell, client, rw, bs, iodepth, numjobs,
            threads, rc, runtime_s):
    row = dict(rep=rep, server=server, cell=cell, client=client, rw=rw, bs=bs, iodepth=iodepth, numjobs=numjobs,
               client_threads=threads, json=json_path.rsplit("/", 1)[-1])
    tool = "fio" if client == "fio" else "nfsbench"
    # nfsbench's notes are fine on stderr; "Laying out IO file" (the files were not there) or anything else is not
    s, problems = check_run(rc, err_path, json_path, tool, rw, bs, iodepth, numjobs, runtime_s,
                            () if tool == "fio" else ("nfsbench: note:",))
    if s and s["ios"]:
        # columns: 1 machine busy, 2 the measured server, 3 the client's process tree, 4.. the idle servers
        samples = read_samples(samples_path)
        t1, rt = s["end"], s["runtime"]
        t0 = t1 - rt
        srv = window_seconds(samples, 2, t0, t1)
        cli_proc = window_seconds(samples, 3, t0, t1)
        busy = window_seconds(samples, 1, t0, t1)
        idle = sum(window_seconds(samples, c, t0, t1) for c in range(4, len(samples[0]))
                   if all(x[c] >= 0 for x in samples))
        if any(x[2] < 0 for x in samples):
            problems.append("%s vanished during the run" % SHORT[server])
        cli, ios, nbytes = s["client_cpu"], s["ios"], s["bytes"]
        other = busy - srv - cli_proc - idle
        # fio's nfs engine: one libnfs context (one TCP connection) per job; nfsbench says how many it opened
        row["connections"] = numjobs if tool == "fio" else \
            load_fio(json_path).get("nfsbench", {}).get("notes", {}).get("connections", "")
        row.update(runtime_s="%.3f" % rt, ios=ios, bytes=nbytes, iops="%.1f" % s["iops"],
                   bw_MBps="%.1f" % (s["bw"] / 1e6), lat_mean_us="%.1f" % s["lat_us"],
                   clat_p99_us="%.1f" % s["p99_us"], client_cpu_s="%.3f" % cli, client_cpu_proc_s="%.3f" % cli_proc,
                   server_cpu_s="%.3f" % srv, client_cores="%.3f" % (cli / rt), server_cores="%.3f" % (srv / rt),
                   client_us_per_io="%.3f" % (cli / ios * 1e6), server_us_per_io="%.3f" % (srv / ios * 1e6),
                   client_cpu_s_per_GB="%.3f" % (cli / nbytes * 1e9), server_cpu_s_per_GB="%.3f" % (srv / nbytes * 1e9),
                   machine_busy_cores="%.3f" % (busy / rt), idle_server_cores="%.3f" % (idle / rt),
                   other_busy_cores="%.3f" % (other / rt), wall_s="%.2f" % (samples[-1][0] - samples[0][0]))
    row["status"] = "ok" if not problems else "; ".join(problems)
    append_row(csv_path, FIELDS, row)
    if s and s["ios"]:
        unit = ("%8.0f IOPS" % s["iops"]) if bs == "4k" else ("%7.0f MB/s" % (s["bw"] / 1e6))
        print("  %-8s %-7s %-9s rep %s: %s  client %.2f cores (/proc %.2f)  %s %.2f cores  other %.2f cores%s" % (
            cell, SHORT[server], client, rep, unit, cli / rt, cli_proc / rt, SHORT[server], srv / rt, other / rt,
            "" if not problems else "  !! FAILED: " + row["status"]))
    else:
        print("  %-8s %-7s %-9s rep %s: FAILED: %s" % (cell, SHORT[server], client, rep, row["status"]))

def cmd_report(csv_path, servers_arg, clients_arg, cells_arg, reps, runtime, ramp):
    rows = list(csv.DictReader(open(csv_path)))
    servers, clients = servers_arg.split(","), clients_arg.split(",")
    ours = [c for c in clients if c != "fio"]
    cells = [c.split("|") for c in cells_arg.split(";")]
    med = statistics.median
    ok = lambda srv, cell, c: [r for r in rows if (r["server"], r["cell"], r["client"], r["status"]) == (srv, cell, c, "ok")]
    val = lambda rs, k: med([float(r[k]) for r in rs]) if rs else None
    summary = {s: [] for s in servers}
    for srv in servers:
        print()
        print("==== server: %s" % SERVER[srv])
        for name, rw, bs, qd, nj, metric, target, title in cells:
            by = {c: ok(srv, name, c) for c in clients}
            per_io = bs == "4k"
            print()
            print("== %s on %s — %s: %s, bs %s, iodepth %s, %s job(s); %s rep(s) × %s s (+%s s ramp); median [min–max]" % (
                name, SHORT[srv], title, rw, bs, qd, nj, reps, runtime, ramp))
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
                       ("server_cores", "%s CPU (cores)" % SHORT[srv], "f"),
                       ("server_us_per_io", "%s CPU µs / I/O" % SHORT[srv], "f") if per_io else
                       ("server_cpu_s_per_GB", "%s CPU-s / GB" % SHORT[srv], "f"),
                       ("machine_busy_cores", "machine busy (cores)", "f"),
                       ("idle_server_cores", "idle server (cores)", "f"), ("other_busy_cores", "other busy (cores)", "f")]
            for key, mlabel, kind in metrics:
                if key == "idle_server_cores" and len(servers) == 1:
                    continue
                line = "%-30s" % mlabel
                for c in clients:
                    line += "%-24s" % spread([float(r[key]) for r in by[c] if r[key] != ""], kind, med)
                if key not in ("client_threads", "connections", "machine_busy_cores", "idle_server_cores",
                               "other_busy_cores"):
                    for c in ours:
                        line += "%-22s" % spread(paired_ratios(by[c] + by["fio"], "client", c, "fio", key), "x", med)
                print(line)
            busy = [float(r["machine_busy_cores"]) for c in clients for r in by[c]]
            cores = os.cpu_count() or 1
            if busy:
                print("%-30s%d of %d runs had the machine's %d cores ≥ 95%% busy (server, client and other work share them)" % (
                    "saturated", sum(b >= 0.95 * cores for b in busy), len(busy), cores))
            key = "iops" if metric == "iops" else "bw_MBps"
            cpu_key = "client_us_per_io" if per_io else "client_cpu_s_per_GB"
            for c in ours:
                pr = paired_ratios(by[c] + by["fio"], "client", c, "fio", key)
                verdict = "-" if not pr else ("PASS" if med(pr) >= float(target) else "MISS")
                if c != "nfsbench" or srv != JUDGED:
                    verdict = verdict.lower() + " (info)"
                summary[srv].append((name, label(c), val(by[c], key), val(by["fio"], key), metric, pr, target, verdict,
                                     val(by[c], cpu_key), val(by["fio"], cpu_key), per_io,
                                     val(by[c], "server_cores"), val(by["fio"], "server_cores")))
    print()
    print("CPU over each run's measured window: client (JSON) = (usr_cpu + sys_cpu) × job_runtime summed over")
    print("jobs, fio's own figure (nfsbench: the process's use averaged over the whole run, ramp included, times")
    print("the measured runtime); client (/proc) = the client's process tree sampled every 50 ms; server =")
    print("utime+stime of all its threads; idle server = the other server, up but not addressed; other busy =")
    print("machine-wide busy time minus server, idle server and client (/proc): other work on the machine")
    print("(±0.1 core: tick vs. precise accounting). Ratios pair the two clients' runs of the same rep on the")
    print("same server; failed runs are left out (listed below).")
    for srv in servers:
        print()
        if srv == JUDGED:
            print("== verdicts on %s: nfsbench run / fio+libnfs (median of per-rep ratios [min–max]); the issue's targets" % SERVER[srv])
        else:
            print("== verdicts on %s (info: the targets are judged on %s): nfsbench run / fio+libnfs (median of" % (
                SERVER[srv], SHORT[JUDGED]))
            print("   per-rep ratios [min–max]); a server far cheaper than Ganesha, so the client's own cost shows")
        print("%-8s %-14s %-10s %-10s %-20s %-7s %-12s %-28s %s" % (
            "cell", "client", "ours", "fio", "ratio", "target", "verdict", "client CPU ours / fio",
            "%s cores ours / fio" % SHORT[srv]))
        for (name, who, o, f, metric, pr, target, verdict, co, cf, per_io, so, sf) in summary[srv]:
            kind = "iops" if metric == "iops" else "f"
            unit = "" if metric == "iops" else " MB/s"
            cpu = "-" if co is None or cf is None else "%.2f / %.2f %s" % (co, cf, "µs/IO" if per_io else "s/GB")
            print("%-8s %-14s %-10s %-10s %-20s %-7s %-12s %-28s %s" % (
                name, who, fmt_num(o, kind) + unit if o is not None else "-", fmt_num(f, kind) + unit if f is not None else "-",
                spread(pr, "x", med), "≥ %s×" % target, verdict, cpu,
                "-" if so is None or sf is None else "%.2f / %.2f" % (so, sf)))
    print()
    print("== client CPU per I/O (4 KiB cells: µs / I/O; 1 MiB: CPU-s / GB), JSON figure, median [min–max] of reps;")
    print("   (×fio): the median of per-rep ratios to fio+libnfs on the same server")
    print("%-8s %-18s" % ("cell", "client") + "".join("%-34s" % ("on " + SHORT[s]) for s in servers))
    for name, rw, bs, qd, nj, metric, target, title in cells:
        cpu_key = "client_us_per_io" if bs == "4k" else "client_cpu_s_per_GB"
        for c in clients:
            line = "%-8s %-18s" % (name, label(c))
            for srv in servers:
                txt = spread([float(r[cpu_key]) for r in ok(srv, name, c)], "f", med)
                if c != "fio":
                    pr = paired_ratios(ok(srv, name, c) + ok(srv, name, "fio"), "client", c, "fio", cpu_key)
                    txt += " (%s fio)" % fmt_num(med(pr), "x") if pr else ""
                line += "%-34s" % txt
            print(line)
    print_problems([dict(r, cell="%s on %s" % (r["cell"], SHORT[r["server"]])) for r in rows], "client",
                   "failed runs, not counted")

if __name__ == "__main__":
    run_command({"row": cmd_row, "report": cmd_report})
PYEOF

# --- cleanup (on_exit in bench/lib/common.sh: this, the sampler, WORK) -----------------------------------
CLIENT=
EXPORT_DIR=$WORK/export   # Ganesha's tmpfs, ours, so that a Ganesha restarted after it died serves the same files
cleanup_hook() {
  if [ -n "$CLIENT" ]; then kill -TERM "$CLIENT" 2>/dev/null; wait "$CLIENT" 2>/dev/null; fi
  stop_all_ours
  if [ "$GANESHA_STARTED" = 1 ]; then
    ganesha stop >/dev/null 2>&1 || say "warning: ganesha.sh stop failed"
    GANESHA_STARTED=0
  fi
  if mountpoint -q "$EXPORT_DIR"; then umount "$EXPORT_DIR" || umount -l "$EXPORT_DIR"; fi
}
set_traps

# --- machine, tools -------------------------------------------------------------------------------------
prepare_tools $(( NFILES * FILE_BYTES * ${#SERVERS[@]} )) run \
  "$REPS rep(s) × ${RUNTIME} s (+${RAMP} s ramp) per cell, server and client; servers ${SERVERS[*]}; clients ${CLIENTS[*]}; $NFILES files × $FILE_SIZE per server$(on nfsbench && echo "; nfsbench serve mem:$MEM_SIZE")"
if [ -n "$BEFORE" ]; then
  cp "$BEFORE" "$WORK/nfsbench-before"
  echo "before:   $BEFORE ($(stat -c %y "$BEFORE" | cut -d. -f1)), client nfsb-before" | tee -a "$OUT/machine.txt"
fi

# --- the servers, and the files laid out once on each ----------------------------------------------------
# start_ganesha: Ganesha on EXPORT_DIR; sets SRV_URL[ganesha] and SRV_PID[ganesha]
start_ganesha() {
  GANESHA_STARTED=1
  SRV_URL[ganesha]=$(ganesha start "$EXPORT_DIR")
  SRV_PID[ganesha]=$(sed -n 's/^PID=//p' "$OUT/ganesha/ganesha.env")
  [ -n "${SRV_PID[ganesha]}" ] || die "no Ganesha pid in $OUT/ganesha/ganesha.env"
  url_up "${SRV_URL[ganesha]}" || die "Ganesha does not answer"
}

# ganesha_up WHEN: Ganesha lives and answers; if not (something else on this machine stopped it: seen
# here while other sessions ran Ganesha), restart it on the same files, at most 3 times, and say so
RESTARTS=0
ganesha_up() {
  if kill -0 "${SRV_PID[ganesha]}" 2>/dev/null && url_up "${SRV_URL[ganesha]}"; then return 0; fi
  RESTARTS=$((RESTARTS + 1))
  [ $RESTARTS -le 3 ] || die "Ganesha is down again before $1 (3 restarts already)"
  cp -f "$OUT/ganesha/ganesha.log" "$OUT/ganesha-died-$RESTARTS.log" 2>/dev/null || true
  echo "restart:  Ganesha (pid ${SRV_PID[ganesha]}) was gone before $1 at $(date +%T): $(grep -v TIRPC "$OUT/ganesha-died-$RESTARTS.log" 2>/dev/null | tail -1 | cut -c1-120); restarted" \
    | tee -a "$OUT/machine.txt" >&2
  ganesha stop >/dev/null 2>&1 || true
  start_ganesha
}

# server_up NAME WHEN: server NAME lives and answers (Ganesha restarted if not; nfsbench serve's files
# would be gone with it, so it is not)
server_up() {
  if [ "$1" = ganesha ]; then ganesha_up "$2"; else check_up "$1"; fi
}

if on ganesha; then
  mkdir -p "$EXPORT_DIR"
  mount -t tmpfs -o "size=$TMPFS_SIZE,mode=1777" nfsbench-client-bench "$EXPORT_DIR"
  start_ganesha
fi
if on nfsbench; then start_ours nfsbench "mem:$MEM_SIZE"; fi
cd "$WORK"   # fio 3.33 takes the job name itself as the file name when a directory of that name is in its cwd

for s in "${SERVERS[@]}"; do
  t0=$(date +%s.%N)
  "$WORK/nfsbench" run --target "${SRV_URL[$s]}" --name="$JOB" --rw=write --bs=1m --iodepth=8 --numjobs=$NFILES \
    --size="$FILE_SIZE" --verify=crc32c --do_verify=1 --eta never --output-format=json \
    --output="$OUT/json/layout-$s.json" 2>"$OUT/json/layout-$s.err" || { cat "$OUT/json/layout-$s.err" >&2; die "laying out the files on $s failed"; }
  check_layout "$OUT/json/layout-$s.json" "$FILE_BYTES" "$t0" "layout by nfsbench run on $s"
  check_files "$s" "^$JOB\\.[0-9]+\\.0\$" $NFILES "$FILE_BYTES"
done
if on ganesha; then
  for n in $(seq 0 $((NFILES - 1))); do
    f=$EXPORT_DIR/$JOB.$n.0
    [ "$(stat -c %s "$f" 2>/dev/null)" = "$FILE_BYTES" ] || die "$f on Ganesha's tmpfs is not $FILE_BYTES bytes"
  done
fi

# --- measurement: reps × cells × servers × clients, the order reversed every rep -------------------------
CSV=$OUT/results.csv
: > "$CSV"
PAIRS=()
for s in "${SERVERS[@]}"; do for c in "${CLIENTS[@]}"; do PAIRS+=("$s/$c"); done; done
HALF=$(( $(nproc) / 2 ))   # nfsbench run's default client threads: half the cores, at most one per clone, at least 1
# measure REP SERVER/CLIENT CELL RW BS IODEPTH NUMJOBS: one client run (run_matrix in bench/lib/common.sh calls it)
measure() {
  local rep=$1 server=${2%/*} client=${2#*/} name=$3 rw=$4 bs=$5 qd=$6 nj=$7 cmd threads rc=0 s idle=() url
  local base=$OUT/json/r$rep-$name-$server-$client samples=$OUT/samples/r$rep-$name-$server-$client.txt
  local opts=(--name="$JOB" --rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$nj" --size="$FILE_SIZE"
              --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --output-format=json --output="$base.json")
  [[ $rw == rand* ]] && opts+=(--norandommap)
  threads=$(( nj < HALF ? nj : (HALF > 0 ? HALF : 1) ))
  url=${SRV_URL[$server]}
  case $client in
    fio) cmd=("$FIO" --ioengine=nfs --nfs_url="$url" --filename_format="\$jobname.\$jobnum.\$filenum" "${opts[@]}")
         threads=$nj ;;
    nfsbench) cmd=("$WORK/nfsbench" run --target "$url" --eta never "${opts[@]}") ;;
    nfsb-t*) threads=${client#nfsb-t}
             cmd=("$WORK/nfsbench" run --target "$url" --eta never --client-threads "$threads" "${opts[@]}") ;;
    nfsb-nc*) cmd=("$WORK/nfsbench" run --target "$url&nconnect=${client#nfsb-nc}" --eta never "${opts[@]}") ;;
    nfsb-before) cmd=("$WORK/nfsbench-before" run --target "$url" --eta never "${opts[@]}") ;;
  esac
  : > "$base.json"
  if ! server_up "$server" "$name $client rep $rep"; then
    echo "not run: $server is down" > "$base.err"
    py row "$CSV" "$base.json" "$base.err" "$samples" "$rep" "$server" "$name" "$client" "$rw" "$bs" "$qd" "$nj" \
      "$threads" 99 "$RUNTIME"
    return 0
  fi
  for s in "${SERVERS[@]}"; do if [ "$s" != "$server" ]; then idle+=("${SRV_PID[$s]}"); fi; done
  rm -f "$WORK/client.pid"
  start_sampler "$samples" "${SRV_PID[$server]}" "tree:$WORK/client.pid" "${idle[@]}"
  timeout -k 10 $((RAMP + RUNTIME + 90)) "${cmd[@]}" 2>"$base.err" &
  CLIENT=$!
  echo "$CLIENT" > "$WORK/client.pid"
  wait "$CLIENT" || rc=$?
  CLIENT=
  sleep 0.1
  stop_sampler
  py row "$CSV" "$base.json" "$base.err" "$samples" "$rep" "$server" "$name" "$client" "$rw" "$bs" "$qd" "$nj" \
    "$threads" "$rc" "$RUNTIME"
}
run_matrix "server/client pair" "${PAIRS[@]}"
stop_all_ours   # nfsbench serve prints its statistics at SIGTERM

# --- report ------------------------------------------------------------------------------------------
{
  names=()
  for s in "${SERVERS[@]}"; do
    if [ "$s" = ganesha ]; then names+=("NFS-Ganesha (VFS on tmpfs)"); else names+=("nfsbench serve (mem:$MEM_SIZE)"); fi
  done
  echo "== nfsbench run vs fio ioengine=nfs (libnfs), both against the same server, NFSv3 over loopback TCP;"
  echo "   servers: $(printf '%s; ' "${names[@]}" | sed 's/; $//')"
  cat "$OUT/machine.txt"
  echo "note:     absolute figures are from this $(nproc)-core machine, where client and server share the cores;"
  echo "          compare the ratios (both clients against the same server, interleaved), not the absolutes."
  py report "$CSV" "$(IFS=,; echo "${SERVERS[*]}")" "$(IFS=,; echo "${CLIENTS[*]}")" "$(cells_spec 8)" "$REPS" \
    "$RUNTIME" "$RAMP"
  echo
  echo "files: $OUT/results.csv, $OUT/json/ (raw JSON and stderr per run), $OUT/samples/"
  if on ganesha; then echo "       $OUT/ganesha/ (Ganesha's config, log)"; fi
  if on nfsbench; then echo "       $OUT/servers/ (nfsbench serve's log, statistics)"; fi
} | tee "$OUT/report.txt"
