#!/bin/bash
# bench/v4-vs-v3.sh — what NFSv4.1 (and v4.2) cost against NFSv3 with nfsbench's own client and server, one
# run (issue 19's benchmark): `nfsbench serve --rdma` on loopback, `nfsbench run` over v3, v4.1 and v4.2,
# each over proto=tcp and proto=rdma, against the same RAM export; printed as v4.x/v3 ratios per transport
# and cell against the target (v4.1 within 10% of v3: ≥ 0.9×), the nconnect=4 RDMA/TCP ratio for 4 KiB
# random reads (target ≥ 1.0×), and CPU per I/O of client and server on each side.
#
# plans/v4-vs-v3.toml measures the same crossing with `nfsbench compare` (cases tcp, tcp-nconnect4, rdma,
# rdma-nconnect4 × versions 3, 4.1, 4.2, the embedded server inside the measuring process, an HTML report
# with confidence intervals). This script is its side-by-side check: the server is a process of its own
# (so its CPU is measured apart from the client's), runs are interleaved per rep so the two versions of a
# ratio ran seconds apart, and it prints the issue's targets with a verdict. Same workloads, same options.
#
# The RDMA provider is the soft one by default (shared memory between the two processes on this host, no
# RDMA device): it stands in for a NIC, and the copies a NIC would do land on these CPUs — every report
# says so. The machine may be shared: each run's row says how many cores other processes used meanwhile.
# Server: one `nfsbench serve --export /export=mem:SIZE --rdma --rdma-provider P`, for the whole run.
# File: one of --file-size, laid out once over NFSv3/TCP with crc32c verify; every run reads or overwrites it.
# Cells (1 job each, so the client's CPU is one process's):
#   sr1m      1 MiB sequential read, iodepth 8      bandwidth
#   sw1m      1 MiB sequential write, iodepth 8     bandwidth
#   rr4k      4 KiB random read, iodepth 32         IOPS
#   rw4k      4 KiB random write, iodepth 32        IOPS
#   rr4k-nc4  4 KiB random read, iodepth 32, nconnect=4 (TCP connections or RDMA queue pairs)
# Each cell runs every version over both transports. Repetitions are interleaved: rep 1 runs every cell as
# tcp v3, v4.1, v4.2, then rdma v3, v4.1, v4.2; rep 2 the reverse order, and so on. A ratio pairs the two
# runs of one rep; the report gives the median of the per-rep ratios [min–max].
# Every run's JSON is checked (exit status, stderr, no job error, every I/O completed, the whole runtime).
# CPU over each run's measured window (after the ramp): client = the JSON's (usr_cpu + sys_cpu) ×
# job_runtime; server = utime+stime of all its threads (/proc/PID/stat every 50 ms); per I/O (4 KiB) or
# per GB (1 MiB). "others" = the machine's busy CPU minus client and server, in cores, over the window.
#
# usage: bench/v4-vs-v3.sh [--quick] [--reps N] [--runtime S] [--ramp S] [--file-size SIZE] [--cells LIST]
#          [--versions LIST] [--transports LIST] [--provider soft|verbs|auto] [--mem-size SIZE]
#          [--nfsbench PATH] [--out DIR]
#   --quick               1 rep, 3 s runtime (1 s ramp)
#   --reps N              repetitions (default 3)
#   --runtime S           measured seconds per run (default 5); --ramp S: unmeasured warm-up (default 1)
#   --file-size SIZE      the file's size, fio syntax (default 1g)
#   --cells LIST          comma-separated subset of the cells above (default all)
#   --versions LIST       NFS versions, 3 first (default 3,4.1,4.2)
#   --transports LIST     tcp, rdma or both (default tcp,rdma)
#   --provider P          the RDMA provider of client and server (default soft)
#   --mem-size SIZE       capacity of the RAM export (default: file size + 1 GiB, at least 2 GiB)
#   --nfsbench PATH       binary to test (default target/release/nfsbench; copied, so rebuilds don't matter)
#   --out DIR             output directory (default /tmp/nfsbench-v4v3-<date>): report.txt, results.csv,
#                         machine.txt, json/ (JSON + stderr of every run), samples/, servers/ (serve's log)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=bench/lib/common.sh
. "$repo/bench/lib/common.sh"

# --- options -----------------------------------------------------------------------------------------
REPS=3 RUNTIME=5 RAMP=1 FILE_SIZE=1g CELLS_ARG='' MEM_SIZE='' NFSBENCH=$repo/target/release/nfsbench
PROVIDER=soft VERSIONS=3,4.1,4.2 TRANSPORTS=tcp,rdma NEEDS_ROOT=0
OUT=/tmp/nfsbench-v4v3-$(date +%Y%m%d-%H%M%S)
script_option() {
  case $1 in
    --provider) PROVIDER=${2:?--provider soft|verbs|auto} OPT_ARGS=2 ;;
    --versions) VERSIONS=${2:?--versions LIST} OPT_ARGS=2 ;;
    --transports) TRANSPORTS=${2:?--transports LIST} OPT_ARGS=2 ;;
    *) return 1 ;;
  esac
}
parse_options "$@"
IFS=, read -r -a VERS <<<"$VERSIONS"
IFS=, read -r -a TRANS <<<"$TRANSPORTS"
[ "${VERS[0]}" = 3 ] || die "--versions: the list starts with 3 (the ratios' denominator), not '$VERSIONS'"
for v in "${VERS[@]}"; do [[ $v =~ ^(3|4\.1|4\.2)$ ]] || die "--versions: 3, 4.1 or 4.2, not '$v'"; done
for t in "${TRANS[@]}"; do [[ $t =~ ^(tcp|rdma)$ ]] || die "--transports: tcp or rdma, not '$t'"; done

# cell: name rw bs iodepth nconnect label
ALL_CELLS=(
  "sr1m     read      1m 8  1 1 MiB seq read"
  "sw1m     write     1m 8  1 1 MiB seq write"
  "rr4k     randread  4k 32 1 4 KiB rand read"
  "rw4k     randwrite 4k 32 1 4 KiB rand write"
  "rr4k-nc4 randread  4k 32 4 4 KiB rand read, nconnect=4"
)
select_cells "${ALL_CELLS[@]}"

JOB=v4v3
FILE_BYTES=$(bytes_of "$FILE_SIZE") || die "--file-size: '$FILE_SIZE' is not a size"
default_mem_size 1 "$FILE_BYTES"

mkdir -p "$OUT"/{json,samples}
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/nfsbench-v4v3-work.XXXXXX)
PY=$WORK/v4v3.py

# --- the python helper: per-run row, report ---------------------------------------------------------------
cat > "$PY" <<'PYEOF'
import csv, statistics
from benchlib import append_row, check_run, fmt_num, load_fio, paired_ratios, print_problems, read_samples, \
    run_command, spread, window_seconds

FIELDS = ["rep", "cell", "transport", "vers", "nconnect", "rw", "bs", "iodepth", "status", "runtime_s", "ios",
          "bytes", "iops", "bw_MBps", "lat_mean_us", "clat_stdev_us", "clat_p99_us", "client_cpu_s", "server_cpu_s",
          "others_cores", "client_cpu_s_per_GB", "server_cpu_s_per_GB", "client_us_per_io", "server_us_per_io",
          "provider", "json"]
TARGET, NC_TARGET = 0.9, 1.0
med = statistics.median

def cmd_row(csv_path, json_path, err_path, samples_path, rep, cell, transport, vers, nconnect, rw, bs, iodepth,
            rc, runtime_s):
    row = dict(rep=rep, cell=cell, transport=transport, vers=vers, nconnect=nconnect, rw=rw, bs=bs,
               iodepth=iodepth, json=json_path.rsplit("/", 1)[-1])
    s, problems = check_run(rc, err_path, json_path, "nfsbench", rw, bs, iodepth, 1, runtime_s,
                            ("nfsbench: note:", "nfsbench: RPC-over-RDMA over "))
    if s and s["ios"]:
        j = load_fio(json_path)
        d = "read" if "read" in rw else "write"
        samples = read_samples(samples_path)
        t1, rt = s["end"], s["runtime"]
        srv = window_seconds(samples, 2, t1 - rt, t1)
        busy = window_seconds(samples, 1, t1 - rt, t1)
        cli_sampled = window_seconds(samples, 3, t1 - rt, t1)
        if any(x[2] < 0 for x in samples):
            problems.append("the server vanished during the run")
        cli, ios, nbytes = s["client_cpu"], s["ios"], s["bytes"]
        row.update(runtime_s="%.3f" % rt, ios=ios, bytes=nbytes, iops="%.1f" % s["iops"],
                   bw_MBps="%.1f" % (s["bw"] / 1e6), lat_mean_us="%.1f" % s["lat_us"],
                   clat_stdev_us="%.2f" % (j["jobs"][0][d]["clat_ns"]["stddev"] / 1e3),
                   clat_p99_us="%.1f" % s["p99_us"], client_cpu_s="%.3f" % cli, server_cpu_s="%.3f" % srv,
                   others_cores="%.2f" % (max(busy - srv - cli_sampled, 0.0) / rt),
                   client_cpu_s_per_GB="%.3f" % (cli / nbytes * 1e9), server_cpu_s_per_GB="%.3f" % (srv / nbytes * 1e9),
                   client_us_per_io="%.2f" % (cli / ios * 1e6), server_us_per_io="%.2f" % (srv / ios * 1e6),
                   provider=j.get("nfsbench", {}).get("notes", {}).get("transport", ""))
    row["status"] = "ok" if not problems else "; ".join(problems)
    append_row(csv_path, FIELDS, row)
    if s and s["ios"]:
        unit = ("%8.0f IOPS" % s["iops"]) if bs == "4k" else ("%7.0f MB/s" % (s["bw"] / 1e6))
        cpu = ("client %s / server %s µs per I/O" % (row["client_us_per_io"], row["server_us_per_io"])) if bs == "4k" \
            else ("client %s / server %s CPU-s per GB" % (row["client_cpu_s_per_GB"], row["server_cpu_s_per_GB"]))
        print("  %-8s %-4s v%-3s rep %s: %s  %s  others %s cores%s" % (
            cell, transport, vers, rep, unit, cpu, row["others_cores"],
            "" if not problems else "  !! FAILED: " + row["status"]))
    else:
        print("  %-8s %-4s v%-3s rep %s: FAILED: %s" % (cell, transport, vers, rep, row["status"]))

def cmd_report(csv_path, cells_arg, versions, transports, reps, runtime, ramp, machine_path):
    rows = list(csv.DictReader(open(csv_path)))
    cells = [c.split("|") for c in cells_arg.split(";")]
    versions, transports = versions.split(","), transports.split(",")
    newer = versions[1:]
    print(open(machine_path).read().rstrip())
    providers = sorted({r["provider"] for r in rows if r["transport"] == "rdma" and r["provider"]})
    print("RDMA provider: %s" % (", ".join(providers) or "-"))
    if any("soft" in p for p in providers):
        print("  (the soft provider stands in for an RDMA NIC: client and server on one host, one-sided copies by")
        print("   the CPU: a memcpy into or out of the client's shared pool, process_vm_readv/writev elsewhere;")
        print("   a NIC would move them off the CPUs)")
    ok = lambda **k: [r for r in rows if r["status"] == "ok" and all(r[a] == b for a, b in k.items())]
    verdicts, cpu_lines = [], []
    for name, rw, bs, qd, nc, title in cells:
        per_io = bs == "4k"
        key = "iops" if per_io else "bw_MBps"
        for t in transports:
            by = {v: ok(cell=name, transport=t, vers=v) for v in versions}
            print()
            print("== %s over %s — %s: %s, bs %s, iodepth %s, nconnect %s, 1 job; %s rep(s) × %s s (+%s s ramp); "
                  "median [min–max]" % (name, t, title, rw, bs, qd, nc, reps, runtime, ramp))
            print("%-22s" % "" + "".join("%-22s" % ("v" + v) for v in versions)
                  + "".join("%-20s" % ("v%s/v3" % v) for v in newer))
            metrics = [("iops", "IOPS", "iops"), ("bw_MBps", "bandwidth MB/s", "f"),
                       ("lat_mean_us", "mean latency µs", "f"), ("clat_stdev_us", "clat stdev µs", "f"),
                       ("clat_p99_us", "p99 clat µs", "f")]
            metrics += [("client_us_per_io", "client CPU µs / I/O", "f"), ("server_us_per_io", "server CPU µs / I/O", "f")] \
                if per_io else [("client_cpu_s_per_GB", "client CPU-s / GB", "f"), ("server_cpu_s_per_GB", "server CPU-s / GB", "f")]
            metrics += [("others_cores", "others' CPU (cores)", "f")]
            for k, label, kind in metrics:
                line = "%-22s" % label + "".join("%-22s" % spread([float(r[k]) for r in by[v]], kind, med) for v in versions)
                for v in newer:
                    line += "%-20s" % spread(paired_ratios(by["3"] + by[v], "vers", v, "3", k), "x", med)
                print(line)
            for v in newer:
                pr = paired_ratios(by["3"] + by[v], "vers", v, "3", key)
                target = TARGET if v == "4.1" else None
                verdict = "-" if not pr else ("info" if target is None else ("PASS" if med(pr) >= target else "MISS"))
                verdicts.append((name, t, v, title, pr, target, verdict))
                cpu = []
                for k in (("client_us_per_io", "server_us_per_io") if per_io else ("client_cpu_s_per_GB", "server_cpu_s_per_GB")):
                    a = [float(r[k]) for r in by["3"]]
                    b = [float(r[k]) for r in by[v]]
                    cpu.append((fmt_num(med(a), "f") if a else "-", fmt_num(med(b), "f") if b else "-",
                                spread(paired_ratios(by["3"] + by[v], "vers", v, "3", k), "x", med)))
                cpu_lines.append((name, t, v, "µs/I/O" if per_io else "s/GB", cpu))
    print()
    print("== verdicts: v4.x/v3 with nfsbench's client and server (median of per-rep ratios [min–max]);")
    print("   target: v4.1 within 10%% of v3 (≥ %.2f×) in every cell over every transport" % TARGET)
    for name, t, v, title, pr, target, verdict in verdicts:
        print("  %-8s %-4s v%-3s %-30s %-24s %-8s %s" % (name, t, v, title, spread(pr, "x", med),
                                                     "" if target is None else "≥ %.2f×" % target, verdict))
    nc_cells = [c for c in cells if c[4] != "1" and c[2] == "4k" and c[1] == "randread"]
    if nc_cells and set(transports) >= {"tcp", "rdma"}:
        print()
        print("== nconnect=%s, 4 KiB random read: RDMA/TCP, the same version (median of per-rep ratios [min–max])"
              % nc_cells[0][4])
        for v in versions:
            rs = ok(cell=nc_cells[0][0], vers=v)
            pr = paired_ratios(rs, "transport", "rdma", "tcp", "iops")
            target = NC_TARGET if v == "4.1" else None
            verdict = "-" if not pr else ("info" if target is None else ("PASS" if med(pr) >= target else "MISS"))
            print("  v%-3s %-24s %-8s %s" % (v, spread(pr, "x", med), "" if target is None else "≥ %.2f×" % target,
                                           verdict))
    print()
    print("== CPU per I/O (4 KiB) or per GB (1 MiB), medians: v3 → v4.x (median of per-rep ratios [min–max])")
    print("   (each run's own rate: a slower run wakes up for fewer calls at a time, which costs per I/O too)")
    for name, t, v, unit, ((c3, cv, cr), (s3, sv, sr)) in cpu_lines:
        print("  %-8s %-4s v%-3s %-7s client %7s → %-7s %-22s server %7s → %-7s %s" % (
            name, t, v, unit, c3, cv, cr, s3, sv, sr))
    others = [float(r["others_cores"]) for r in rows if r["status"] == "ok"]
    if others:
        print()
        print("other processes used %s cores (median [min–max] over the runs' windows) of the machine's"
              % spread(others, "f", med))
    print_problems(rows, "vers", "failed runs, not counted")

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

# busy_processes: what else runs on the machine (the session shares it), one top frame of 1 s
busy_processes() {
  top -b -n 2 -d 1 -o %CPU -w 200 | awk '/^top -/ {f++} f == 2 && $1 ~ /^[0-9]+$/ && $9 + 0 >= 5 {printf "%s %s%%, ", $12, $9}' \
    | sed 's/, $//'
}

# --- machine, binary, server, the file -------------------------------------------------------------------
write_machine_info "$OUT/machine.txt"
check_ram "$(bytes_of "$MEM_SIZE")"
cp "$NFSBENCH" "$WORK/nfsbench"
{
  echo "nfsbench: $NFSBENCH ($(stat -c %y "$NFSBENCH" | cut -d. -f1); git $(git -C "$repo" rev-parse --short HEAD 2>/dev/null))"
  echo "plan:     $REPS rep(s) × ${RUNTIME} s (+${RAMP} s ramp) per cell, version and transport; versions $VERSIONS;" \
       "transports $TRANSPORTS; provider $PROVIDER; file $FILE_SIZE; serve mem:$MEM_SIZE"
  echo "output:   $OUT"
  echo "beside:   $(busy_processes) (top, 1 s, ≥ 5% of a core)"
} | tee -a "$OUT/machine.txt"
start_ours nfsbench "mem:$MEM_SIZE" --rdma --rdma-listen 127.0.0.1:0 --rdma-provider "$PROVIDER"
PORT=$(port_of "${SRV_URL[nfsbench]}")
RPORT=${SRV_RDMA_PORT[nfsbench]}
[ -n "$RPORT" ] || die "nfsbench serve --rdma wrote no RDMA address to its ready file"
grep -h "RPC-over-RDMA on" "$OUT/servers/nfsbench.stderr" | tee -a "$OUT/machine.txt" || true
TARGET=127.0.0.1:/export

# mount_opts TRANSPORT VERS NCONNECT: the -o of one run (NFSv3 finds MOUNT on the same port; NFSv4 has none)
mount_opts() {
  local port=$PORT o
  [ "$1" = rdma ] && port=$RPORT
  o="vers=$2,proto=$1,port=$port"
  [ "$2" = 3 ] && o+=",mountport=$PORT"
  [ "$3" = 1 ] || o+=",nconnect=$3"
  echo "$o"
}

t0=$(date +%s.%N)
"$WORK/nfsbench" run --target "$TARGET" -o "$(mount_opts tcp 3 1)" --name="$JOB" --rw=write --bs=1m --iodepth=8 \
  --size="$FILE_SIZE" --verify=crc32c --do_verify=1 --eta never --output-format=json \
  --output="$OUT/json/layout.json" 2>"$OUT/json/layout.err" || { cat "$OUT/json/layout.err" >&2; die "laying out the file failed"; }
check_layout "$OUT/json/layout.json" "$FILE_BYTES" "$t0" "layout over NFSv3/TCP"

# --- measurement ------------------------------------------------------------------------------------------
CSV=$OUT/results.csv
: > "$CSV"
# measure REP TRANSPORT VERS CELL RW BS IODEPTH NCONNECT: one client run
measure() {
  local rep=$1 transport=$2 vers=$3 name=$4 rw=$5 bs=$6 qd=$7 nc=$8 rc=0 extra=()
  local tag=r$rep-$name-$transport-v$vers
  local base=$OUT/json/$tag samples=$OUT/samples/$tag.txt
  [ "$transport" = rdma ] && extra=(--rdma-provider "$PROVIDER")
  [[ $rw == rand* ]] && extra+=(--norandommap)
  : > "$base.json"
  check_up nfsbench || die "the server is down before $tag"
  rm -f "$WORK/client.pid"
  start_sampler "$samples" "${SRV_PID[nfsbench]}" "tree:$WORK/client.pid"
  timeout -k 10 $((RAMP + RUNTIME + 90)) "$WORK/nfsbench" run --target "$TARGET" -o "$(mount_opts "$transport" "$vers" "$nc")" \
    --name="$JOB" --rw="$rw" --bs="$bs" --iodepth="$qd" --size="$FILE_SIZE" --time_based --runtime="$RUNTIME" \
    --ramp_time="$RAMP" --eta never --output-format=json --output="$base.json" "${extra[@]}" 2>"$base.err" &
  CLIENT=$!
  echo "$CLIENT" > "$WORK/client.pid"
  wait "$CLIENT" || rc=$?
  CLIENT=
  sleep 0.1
  stop_sampler
  py row "$CSV" "$base.json" "$base.err" "$samples" "$rep" "$name" "$transport" "$vers" "$nc" "$rw" "$bs" "$qd" \
    "$rc" "$RUNTIME"
}

ITEMS=()
for t in "${TRANS[@]}"; do for v in "${VERS[@]}"; do ITEMS+=("$t/$v"); done; done
echo
echo "== runs (${#CELLS[@]} cells × ${#ITEMS[@]} transport/version pairs × $REPS reps," \
     "~$(( ${#CELLS[@]} * ${#ITEMS[@]} * REPS * (RUNTIME + RAMP + 2) / 60 + 1 )) min)"
for rep in $(seq "$REPS"); do
  order=("${ITEMS[@]}")
  if [ $((rep % 2)) = 0 ]; then
    order=(); for ((i=${#ITEMS[@]}-1; i>=0; i--)); do order+=("${ITEMS[$i]}"); done
  fi
  for c in "${CELLS[@]}"; do
    read -r name rw bs qd nc _ <<<"$c"
    for item in "${order[@]}"; do measure "$rep" "${item%/*}" "${item#*/}" "$name" "$rw" "$bs" "$qd" "$nc"; done
  done
done
{
  echo "load:     $(uptime | sed 's/.*load average/load average/') (after)"
  echo "beside:   $(busy_processes) (after)"
} >> "$OUT/machine.txt"

{
  echo
  py report "$CSV" "$(cells_spec 6)" "$VERSIONS" "$TRANSPORTS" "$REPS" "$RUNTIME" "$RAMP" "$OUT/machine.txt"
} | tee "$OUT/report.txt"
echo
echo "report: $OUT/report.txt  (results.csv, json/, samples/, servers/)"
