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

say() { echo "bench: $*" >&2; }
die() { say "error: $*"; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }

# --- options -----------------------------------------------------------------------------------------
REPS=3 RUNTIME=5 RAMP=1 FILE_SIZE=1g WITH_DIR=0 CELLS_ARG= MEM_SIZE= NFSBENCH=$repo/target/release/nfsbench
OUT=/tmp/nfsbench-bench-$(date +%Y%m%d-%H%M%S)
while [ $# -gt 0 ]; do
  case $1 in
    --quick) REPS=1 RUNTIME=3 RAMP=1 ;;
    --reps) REPS=${2:?--reps N}; shift ;;
    --runtime) RUNTIME=${2:?--runtime S}; shift ;;
    --ramp) RAMP=${2:?--ramp S}; shift ;;
    --file-size) FILE_SIZE=${2:?--file-size SIZE}; shift ;;
    --with-dir) WITH_DIR=1 ;;
    --cells) CELLS_ARG=${2:?--cells LIST}; shift ;;
    --mem-size) MEM_SIZE=${2:?--mem-size SIZE}; shift ;;
    --nfsbench) NFSBENCH=${2:?--nfsbench PATH}; shift ;;
    --out) OUT=${2:?--out DIR}; shift ;;
    -h|--help) usage ;;
    *) say "unknown option: $1"; usage ;;
  esac
  shift
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps: a positive integer, not '$REPS'"
[[ $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--runtime: whole seconds, not '$RUNTIME'"
[[ $RAMP =~ ^[0-9]+$ ]] || die "--ramp: whole seconds, not '$RAMP'"
[ "$(id -u)" = 0 ] || die "needs root (Ganesha's FSAL_VFS, tmpfs mounts)"
[ -x "$NFSBENCH" ] || die "no nfsbench binary at $NFSBENCH (cargo build --release -p nfsbench)"

# cell: name rw bs iodepth numjobs metric label
ALL_CELLS=(
  "rr4k-j1 randread  4k 32 1 iops 4 KiB rand read IOPS, 1 job"
  "rr4k-j4 randread  4k 32 4 iops 4 KiB rand read IOPS, 4 jobs"
  "rw4k-j1 randwrite 4k 32 1 iops 4 KiB rand write IOPS, 1 job"
  "rw4k-j4 randwrite 4k 32 4 iops 4 KiB rand write IOPS, 4 jobs"
  "sr1m    read      1m 8  1 bw   1 MiB seq read bandwidth"
  "sw1m    write     1m 8  1 bw   1 MiB seq write bandwidth"
)
CELLS=()
for c in "${ALL_CELLS[@]}"; do
  name=${c%% *}
  if [ -z "$CELLS_ARG" ] || [[ ,$CELLS_ARG, == *,$name,* ]]; then CELLS+=("$c"); fi
done
[ ${#CELLS[@]} -gt 0 ] || die "--cells '$CELLS_ARG' names none of: rr4k-j1 rr4k-j4 rw4k-j1 rw4k-j4 sr1m sw1m"
NFILES=4   # the most jobs any cell runs; every server gets the same files

bytes_of() { numfmt --from=iec "$(echo "$1" | tr 'a-z' 'A-Z' | sed 's/IB$//; s/B$//')"; }
FILE_BYTES=$(bytes_of "$FILE_SIZE") || die "--file-size: '$FILE_SIZE' is not a size"
if [ -z "$MEM_SIZE" ]; then
  gib=$(( (NFILES * FILE_BYTES + (1 << 30) - 1) / (1 << 30) + 1 ))
  [ $gib -ge 2 ] || gib=2
  MEM_SIZE=${gib}GiB
fi
TMPFS_SIZE=$(( (NFILES * FILE_BYTES) / (1 << 20) + 1024 ))m   # room for the files + 1 GiB

GANESHA_PORT=${BENCH_GANESHA_NFS_PORT:-32049}
GANESHA_MNT=${BENCH_GANESHA_MNT_PORT:-32048}

mkdir -p "$OUT"/{json,samples,servers}
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/nfsbench-bench-work.XXXXXX)
PY=$WORK/bench.py

# --- the python helper: sampler, per-run row, report ----------------------------------------------------
cat > "$PY" <<'PYEOF'
import csv, json, math, os, signal, statistics, sys, time

def proc_ticks(pid):
    try:
        with open("/proc/%s/stat" % pid) as f:
            s = f.read()
    except OSError:
        return -1
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[11]) + int(rest[12])          # utime + stime (fields 14, 15), all threads

def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is inside user)
    return v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)

def cmd_sample(out, *pids):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with open(out, "w") as f:
        while True:
            f.write("%.4f %d %s\n" % (time.time(), busy_ticks(), " ".join(str(proc_ticks(p)) for p in pids)))
            f.flush()
            if stop:
                break
            time.sleep(0.05)

def load_fio(path):
    text = open(path).read()
    start = 0 if text.startswith("{") else text.index("\n{") + 1
    return json.JSONDecoder().raw_decode(text, start)[0]

def interp(samples, col, t):
    # samples: [(t, values...)]; piecewise-linear value of column col at time t (clamped)
    if t <= samples[0][0]:
        return samples[0][col]
    for a, b in zip(samples, samples[1:]):
        if a[0] <= t <= b[0]:
            if b[0] == a[0]:
                return b[col]
            return a[col] + (b[col] - a[col]) * (t - a[0]) / (b[0] - a[0])
    return samples[-1][col]

FIELDS = ["rep", "cell", "server", "rw", "bs", "iodepth", "numjobs", "status", "runtime_s", "ios", "bytes",
          "iops", "bw_MBps", "lat_mean_us", "clat_p99_us", "client_cpu_s", "server_cpu_s", "server_cpu_total_s",
          "fio_wall_s", "server_cores", "client_cores", "server_cpu_s_per_M_io", "server_cpu_s_per_GB",
          "client_cpu_s_per_M_io", "client_cpu_s_per_GB", "machine_busy_cores", "other_busy_cores",
          "idle_servers_cpu_s", "json"]

def cmd_row(csv_path, json_path, err_path, samples_path, rep, cell, server, rw, bs, iodepth, numjobs, fio_rc,
            measured_idx, *idle_idx):
    clk = os.sysconf("SC_CLK_TCK")
    row = dict(rep=rep, cell=cell, server=server, rw=rw, bs=bs, iodepth=iodepth, numjobs=numjobs,
               json=os.path.basename(json_path))
    problems = []
    if fio_rc != "0":
        problems.append("fio exit %s" % fio_rc)
    errtext = open(err_path).read().strip() if os.path.exists(err_path) else ""
    if errtext:
        lines = errtext.splitlines()
        problems.append("fio stderr (%d lines): %s" % (len(lines), lines[0][:120]))
    try:
        j = load_fio(json_path)
        jobs = j["jobs"]
    except Exception as e:   # no or broken JSON: the run failed
        j, jobs = None, []
        problems.append("no fio JSON (%s)" % type(e).__name__)
    samples = []
    for line in open(samples_path):
        p = line.split()
        if len(p) >= 3:
            samples.append([float(p[0])] + [int(x) for x in p[1:]])
    d = "read" if "read" in rw else "write"
    bsb = {"4k": 4096, "1m": 1 << 20}.get(bs) or int(bs)
    if jobs:
        ios = sum(x[d]["total_ios"] for x in jobs)
        nbytes = sum(x[d]["io_bytes"] for x in jobs)
        runtime = max(x["job_runtime"] for x in jobs) / 1000.0
        for x in jobs:
            if x["error"]:
                problems.append("job %s error %d" % (x["jobname"], x["error"]))
            s = x[d]
            # After ramp_time fio resets its counters with up to iodepth I/Os in flight: those complete
            # into io_bytes without having been counted as issued, so completed = issued + (iodepth - 1)
            # is normal. Issued > completed means I/Os lost at teardown (see lab/peers/fio-nfs-drain.patch).
            done = s["io_bytes"] // bsb
            if done < s["total_ios"] or done - s["total_ios"] > int(iodepth):
                problems.append("%d issued, %d completed" % (s["total_ios"], done))
            if s["short_ios"] or s["drop_ios"]:
                problems.append("short %d dropped %d" % (s["short_ios"], s["drop_ios"]))
        client = sum((x["usr_cpu"] + x["sys_cpu"]) / 100.0 * x["job_runtime"] / 1000.0 for x in jobs)
        iops = sum(x[d]["iops"] for x in jobs)
        bw = sum(x[d]["bw_bytes"] for x in jobs)
        lat = sum(x[d]["lat_ns"]["mean"] * x[d]["total_ios"] for x in jobs) / max(ios, 1) / 1e3
        p99 = max(x[d]["clat_ns"].get("percentile", {}).get("99.000000", 0) for x in jobs) / 1e3
        if ios == 0:
            problems.append("no I/O completed")
        t1 = j["timestamp_ms"] / 1000.0
        t0 = t1 - runtime
        col = 2 + int(measured_idx)
        srv = (interp(samples, col, t1) - interp(samples, col, t0)) / clk
        busy = (interp(samples, 1, t1) - interp(samples, 1, t0)) / clk
        idle = sum((interp(samples, 2 + int(i), t1) - interp(samples, 2 + int(i), t0)) / clk for i in idle_idx)
        srv_total = (samples[-1][col] - samples[0][col]) / clk
        wall = samples[-1][0] - samples[0][0]
        if any(s[col] < 0 for s in samples):
            problems.append("server process vanished during the run")
        row.update(runtime_s="%.3f" % runtime, ios=ios, bytes=nbytes, iops="%.1f" % iops,
                   bw_MBps="%.1f" % (bw / 1e6), lat_mean_us="%.1f" % lat, clat_p99_us="%.1f" % p99,
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
    new = not os.path.exists(csv_path) or os.path.getsize(csv_path) == 0
    with open(csv_path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerow(row)
    # one progress line
    if jobs:
        unit = ("%8.0f IOPS" % iops) if bs == "4k" else ("%7.0f MB/s" % (bw / 1e6))
        print("  %-8s %-9s rep %s: %s  server %.2f cores  client %.2f cores  other %.2f cores%s" % (
            cell, server, rep, unit, srv / runtime, client / runtime, (busy - srv - client - idle) / runtime,
            "" if not problems else "  !! " + row["status"]))
    else:
        print("  %-8s %-9s rep %s: FAILED: %s" % (cell, server, rep, row["status"]))

def fmt_num(v, kind):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if kind == "iops":
        return "%.1fk" % (v / 1e3)
    if kind == "int":
        return "%.0f" % v
    if kind == "x":
        return "%.2f×" % v
    return "%.2f" % v if v < 100 else "%.0f" % v

def cmd_report(csv_path, servers_arg, cells_arg, reps, runtime, ramp):
    rows = list(csv.DictReader(open(csv_path)))
    servers = servers_arg.split(",")
    label = {"nfsbench": "nfsbench mem", "ganesha": "Ganesha VFS/tmpfs", "nfsb-dir": "nfsbench dir/tmpfs"}
    cells = [c.split("|") for c in cells_arg.split(";")]
    verdicts = []
    problems = [r for r in rows if r["status"] != "ok"]
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
            paired = {}
            for r in by[s]:
                paired.setdefault(r["rep"], {})["o"] = float(r[key])
            for r in by["ganesha"]:
                paired.setdefault(r["rep"], {})["g"] = float(r[key])
            pr = [p["o"] / p["g"] for p in paired.values() if "o" in p and "g" in p and p["g"]]
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
    if problems:
        print()
        print("== runs with problems (%d)" % len(problems))
        for r in problems:
            print("  %s %s rep %s: %s" % (r["cell"], r["server"], r["rep"], r["status"]))

if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"sample": cmd_sample, "row": cmd_row, "report": cmd_report}[cmd](*args)
PYEOF

# --- cleanup -----------------------------------------------------------------------------------------
declare -A SRV_PID=() SRV_URL=()
SERVERS=()          # in start order: nfsbench ganesha [nfsb-dir]
GANESHA_STARTED=0
DIR_MNT=
SAMPLER=
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  if [ -n "$SAMPLER" ]; then kill -TERM "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null; fi
  local s
  for s in nfsbench nfsb-dir; do
    if [ -n "${SRV_PID[$s]:-}" ]; then stop_ours "$s"; fi
  done
  if [ $GANESHA_STARTED = 1 ]; then
    cp -f "$OUT/ganesha/ganesha.log" "$OUT/servers/ganesha.log" 2>/dev/null || true
    ganesha stop >/dev/null 2>&1 || say "warning: ganesha.sh stop failed"
  fi
  if [ -n "$DIR_MNT" ] && mountpoint -q "$DIR_MNT"; then umount "$DIR_MNT" || umount -l "$DIR_MNT"; fi
  rm -rf "$WORK"
  [ $rc = 0 ] || say "failed (rc=$rc); partial results in $OUT"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ganesha() {
  GANESHA_STATE=$OUT/ganesha GANESHA_NFS_PORT=$GANESHA_PORT GANESHA_MNT_PORT=$GANESHA_MNT \
    GANESHA_TMPFS_SIZE=$TMPFS_SIZE "$repo/lab/peers/ganesha.sh" "$@"
}

# stop_ours NAME: SIGTERM, wait (the server prints its statistics to stdout on exit), SIGKILL after 20 s
stop_ours() {
  local name=$1 pid=${SRV_PID[$1]}
  SRV_PID[$1]=
  kill -0 "$pid" 2>/dev/null || { say "warning: $name (pid $pid) had already exited"; wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid"
  local i
  for i in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then say "warning: $name still alive 20 s after SIGTERM, SIGKILL"; kill -KILL "$pid"; fi
  wait "$pid" 2>/dev/null && true
  say "$name stopped (exit $?); statistics in $OUT/servers/$name.stdout"
}

# start_ours NAME EXPORT_SPEC
start_ours() {
  local name=$1 spec=$2 ready=$WORK/$1.ready
  "$WORK/nfsbench" serve --listen 127.0.0.1:0 --export "/export=$spec" --ready-file "$ready" \
    >"$OUT/servers/$name.stdout" 2>"$OUT/servers/$name.stderr" &
  SRV_PID[$name]=$!
  local i
  for i in $(seq 300); do
    [ -s "$ready" ] && break
    kill -0 "${SRV_PID[$name]}" 2>/dev/null || { cat "$OUT/servers/$name.stderr" >&2; die "$name exited during startup"; }
    sleep 0.1
  done
  [ -s "$ready" ] || die "$name: no ready file after 30 s"
  local port
  port=$(head -1 "$ready" | sed 's/.*://')
  SRV_URL[$name]="nfs://127.0.0.1/export?version=3&nfsport=$port&mountport=$port"
  SERVERS+=("$name")
  say "$name pid ${SRV_PID[$name]} on 127.0.0.1:$port exporting /export=$spec"
}

port_of() { echo "$1" | sed 's/.*nfsport=\([0-9]*\).*/\1/'; }
mntport_of() { echo "$1" | sed 's/.*mountport=\([0-9]*\).*/\1/'; }

# check_up NAME: the process lives and answers NFS v3 and MOUNT v3 NULL calls
check_up() {
  local name=$1 pid=${SRV_PID[$1]} url=${SRV_URL[$1]}
  kill -0 "$pid" 2>/dev/null || { tail -5 "$OUT/servers/$name.stderr" >&2 2>/dev/null; return 1; }
  timeout 5 rpcinfo -n "$(port_of "$url")" -t 127.0.0.1 100003 3 >/dev/null 2>&1 || { say "$name: no answer to NFS NULL"; return 1; }
  timeout 5 rpcinfo -n "$(mntport_of "$url")" -t 127.0.0.1 100005 3 >/dev/null 2>&1 || { say "$name: no answer to MOUNT NULL"; return 1; }
}

# --- machine, tools -------------------------------------------------------------------------------------
{
  echo "date:     $(date -Is)"
  echo "host:     $(hostname)  nproc=$(nproc)  CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  echo "kernel:   $(uname -srm)  memory: $(free -g | awk '/^Mem:/ {print $2 " GiB total, " $7 " GiB available"}')"
  echo "load:     $(uptime | sed 's/.*load average/load average/') (before)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

need_kb=$(( (NFILES * FILE_BYTES * (2 + WITH_DIR)) / 1024 + 1048576 ))
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
[ "$avail_kb" -gt "$need_kb" ] || die "needs ~$((need_kb / 1048576)) GiB of RAM for the files, $((avail_kb / 1048576)) GiB available; try --file-size 512m"

if pgrep -x ganesha.nfsd >/dev/null; then
  say "warning: another ganesha.nfsd is running (pid $(pgrep -x ganesha.nfsd | tr '\n' ' ')): it shares rpcbind registrations and CPU"
fi

FIO=${FIO:-$("$repo/lab/peers/fio-nfs.sh")}
"$FIO" --enghelp 2>/dev/null | grep -qx '[[:space:]]*nfs' || die "$FIO has no nfs engine"
cp "$NFSBENCH" "$WORK/nfsbench"   # immune to rebuilds during the run
"$WORK/nfsbench" serve --help >/dev/null 2>&1 || die "$NFSBENCH has no working 'serve' command"
{
  echo "nfsbench: $NFSBENCH ($(stat -c %y "$NFSBENCH" | cut -d. -f1); git $(git -C "$repo" rev-parse --short HEAD 2>/dev/null)$(git -C "$repo" status --porcelain 2>/dev/null | grep -q . && echo ', work tree modified'))"
  echo "fio:      $FIO ($("$FIO" --version)), ioengine=nfs, $(lib=$(ldd "$FIO" | awk '/libnfs/ {print $3}'); pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | cut -d: -f1); echo "$(basename "$lib") from ${pkg:-?} $(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null)")"
  echo "ganesha:  $(ganesha.nfsd -v 2>/dev/null | sed -n 's/.*Release = V\{0,1\}\([^ ]*\).*/\1/p' | head -1), FSAL_VFS on tmpfs"
  echo "plan:     $REPS rep(s) × ${RUNTIME} s (+${RAMP} s ramp) per cell and server; $NFILES files × $FILE_SIZE per server; nfsbench mem:$MEM_SIZE"
  echo "output:   $OUT"
} | tee -a "$OUT/machine.txt"

# --- servers -----------------------------------------------------------------------------------------
start_ours nfsbench "mem:$MEM_SIZE"
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
fi
for s in "${SERVERS[@]}"; do check_up "$s" || die "$s does not answer"; done

# --- pre-create the files: a 1 MiB write pass, all files of a server in parallel ------------------------
for s in "${SERVERS[@]}"; do
  t0=$(date +%s.%N)
  if ! "$FIO" --name=precreate --ioengine=nfs --nfs_url="${SRV_URL[$s]}" --filename_format='bench.$jobnum' \
      --size="$FILE_SIZE" --rw=write --bs=1m --iodepth=8 --numjobs=$NFILES \
      --verify=crc32c --do_verify=1 --verify_state_save=0 \
      --output-format=json --output="$OUT/json/precreate-$s.json" 2>"$OUT/json/precreate-$s.err"; then
    cat "$OUT/json/precreate-$s.err" >&2; die "pre-create on $s failed"
  fi
  python3 - "$OUT/json/precreate-$s.json" "$FILE_BYTES" "$s" "$t0" <<'EOF' || die "pre-create on $s incomplete"
import json, sys, time
text = open(sys.argv[1]).read()   # fio may print warnings before the JSON
j = json.JSONDecoder().raw_decode(text, 0 if text.startswith("{") else text.index("\n{") + 1)[0]
want = int(sys.argv[2])
bad = [x["jobname"] for x in j["jobs"] if x["error"] or x["write"]["io_bytes"] != want or x["read"]["io_bytes"] != want]
tot = sum(x["write"]["io_bytes"] for x in j["jobs"])
print("bench: pre-created and verified (crc32c read-back) %d × %d MiB on %s in %.1f s (write %.0f MB/s)" % (len(j["jobs"]), want >> 20, sys.argv[3],
      time.time() - float(sys.argv[4]), sum(x["write"]["bw_bytes"] for x in j["jobs"]) / 1e6), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
  if [ -s "$OUT/json/precreate-$s.err" ]; then say "fio stderr during pre-create on $s:"; head -5 "$OUT/json/precreate-$s.err" >&2; fi
done
if command -v nfs-ls >/dev/null; then
  for s in "${SERVERS[@]}"; do
    n=$(nfs-ls "${SRV_URL[$s]}" 2>/dev/null | awk -v w="$FILE_BYTES" '$NF ~ /^bench\.[0-9]+$/ && $(NF-1) == w' | wc -l)
    [ "$n" = $NFILES ] || die "nfs-ls on $s lists $n of $NFILES files bench.N of $FILE_BYTES bytes"
  done
fi

# --- measurement: reps × cells × servers, server order reversed every rep --------------------------------
CSV=$OUT/results.csv
: > "$CSV"
ALLPIDS=()
for s in "${SERVERS[@]}"; do ALLPIDS+=("${SRV_PID[$s]}"); done
echo
echo "== runs (${#CELLS[@]} cells × ${#SERVERS[@]} servers × $REPS reps, ~$(( ${#CELLS[@]} * ${#SERVERS[@]} * REPS * (RUNTIME + RAMP + 1) / 60 + 1 )) min)"
for rep in $(seq "$REPS"); do
  order=("${SERVERS[@]}")
  if [ $((rep % 2)) = 0 ]; then
    order=(); for ((i=${#SERVERS[@]}-1; i>=0; i--)); do order+=("${SERVERS[$i]}"); done
  fi
  for c in "${CELLS[@]}"; do
    read -r name rw bs qd nj metric title <<<"$c"
    for s in "${order[@]}"; do
      base=$OUT/json/r$rep-$name-$s
      if ! check_up "$s"; then
        say "$s is not running or does not answer before $name rep $rep"
        echo "fio not run: $s down" > "$base.err"; : > "$base.json"; echo "0 0" > "$OUT/samples/r$rep-$name-$s.txt"
        python3 "$PY" row "$CSV" "$base.json" "$base.err" "$OUT/samples/r$rep-$name-$s.txt" \
          "$rep" "$name" "$s" "$rw" "$bs" "$qd" "$nj" 99 0 || true
        continue
      fi
      measured=0 idle=()
      for i in "${!SERVERS[@]}"; do
        if [ "${SERVERS[$i]}" = "$s" ]; then measured=$i; else idle+=("$i"); fi
      done
      python3 "$PY" sample "$OUT/samples/r$rep-$name-$s.txt" "${ALLPIDS[@]}" &
      SAMPLER=$!
      sleep 0.15
      rc=0
      extra=(); [[ $rw == rand* ]] && extra=(--norandommap)
      timeout $((RAMP + RUNTIME + 90)) "$FIO" --name="$name" --ioengine=nfs --nfs_url="${SRV_URL[$s]}" \
        --filename_format='bench.$jobnum' --size="$FILE_SIZE" --rw="$rw" --bs="$bs" --iodepth="$qd" \
        --numjobs="$nj" "${extra[@]}" --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" \
        --output-format=json --output="$base.json" 2>"$base.err" || rc=$?
      sleep 0.1
      kill -TERM "$SAMPLER"; wait "$SAMPLER" || true; SAMPLER=
      python3 "$PY" row "$CSV" "$base.json" "$base.err" "$OUT/samples/r$rep-$name-$s.txt" \
        "$rep" "$name" "$s" "$rw" "$bs" "$qd" "$nj" "$rc" "$measured" "${idle[@]}"
    done
  done
done

load_after=$(uptime | sed 's/.*load average/load average/')
echo "load:     $load_after (after)" >> "$OUT/machine.txt"

# --- stop our servers (their statistics go to stdout at SIGTERM), then the report ------------------------
for s in nfsbench nfsb-dir; do if [ -n "${SRV_PID[$s]:-}" ]; then stop_ours "$s"; fi; done
cells_spec=$(for c in "${CELLS[@]}"; do read -r a b cc d e f g <<<"$c"; printf '%s|%s|%s|%s|%s|%s|%s;' "$a" "$b" "$cc" "$d" "$e" "$f" "$g"; done)
servers_spec=$(IFS=,; echo "${SERVERS[*]}")
{
  echo "== nfsbench serve vs NFS-Ganesha, loopback, fio ioengine=nfs (libnfs, NFSv3)"
  cat "$OUT/machine.txt"
  python3 "$PY" report "$CSV" "$servers_spec" "${cells_spec%;}" "$REPS" "$RUNTIME" "$RAMP"
  echo
  echo "files: $OUT/results.csv, $OUT/json/*.json (raw fio), $OUT/servers/ (server logs; nfsbench statistics at SIGTERM)"
} | tee "$OUT/report.txt"
