#!/bin/bash
# scripts/main-job.sh — the main job `make run` runs: the embedded RAM server on loopback (`nfsbench serve
# --export /export=mem:SIZE --rdma`) measured by nfsbench's own client with jobs/transport-study.fio (1 MiB
# sequential read/write, 4 KiB random read/write) over TCP and then over RPC-over-RDMA (the verbs provider
# when this machine has an RDMA device, the soft provider otherwise), printed side by side as RDMA/TCP ratios
# with CPU-seconds per GB. The fio-style results of each run are kept (normal text and JSON).
# One run of each: for repetitions, confidence intervals and the HTML report, `nfsbench compare` (to come);
# for paired repetitions and the server's CPU, bench/rdma-vs-tcp.sh.
#
# usage: scripts/main-job.sh [NFSBENCH] [extra `nfsbench run` arguments, e.g. --runtime=10]
# env:   MAIN_JOB_OUT=DIR keeps the results there (default: a new /tmp/nfsbench-main-DATE)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NFSBENCH=${1:-$repo/target/release/nfsbench}
shift || true
out=${MAIN_JOB_OUT:-/tmp/nfsbench-main-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; fi
  return 0
}
trap cleanup EXIT

# 2 jobs × 512 MiB files per group, 4 groups: 4 GiB of RAM at most.
"$NFSBENCH" serve --listen 127.0.0.1:0 --export /export=mem:5GiB --rdma --rdma-listen 127.0.0.1:0 \
  --ready-file "$out/ready" > "$out/server.log" 2>&1 &
server=$!
for _ in $(seq 200); do [ -s "$out/ready" ] && [ "$(wc -l < "$out/ready")" -ge 2 ] && break; sleep 0.05; done
[ -s "$out/ready" ] || { cat "$out/server.log" >&2; echo "main-job: the server did not start" >&2; exit 1; }
port=$(sed -n '1s/.*://p' "$out/ready")
rport=$(sed -n '2s/.*://p' "$out/ready")
echo "== jobs/transport-study.fio against nfsbench serve (RAM export) on 127.0.0.1, $(nproc) CPUs; $(grep -o 'with .*' "$out/server.log" | head -1)"
# The write groups' files are written once beforehand (unmeasured), so that neither transport's run pays
# for the server allocating their pages: both then overwrite the same files.
for job in seq-write-1m rand-write-4k; do
  "$NFSBENCH" run --name="$job" --rw=write --bs=1m --iodepth=8 --numjobs=2 --size=512m --target 127.0.0.1:/export \
    -o "vers=3,proto=tcp,port=$port,mountport=$port" --eta never --output-format=json --output "$out/prepare-$job.json" \
    2> "$out/prepare-$job.err" || { cat "$out/prepare-$job.err" >&2; echo "main-job: preparing $job's files failed" >&2; exit 1; }
done
for proto in tcp rdma; do
  opts="vers=3,proto=$proto,port=$port,mountport=$port"
  [ "$proto" = rdma ] && opts="vers=3,proto=rdma,port=$rport,mountport=$port"
  echo "-- $proto: nfsbench run jobs/transport-study.fio -o $opts"
  "$NFSBENCH" run "$repo/jobs/transport-study.fio" --target 127.0.0.1:/export -o "$opts" \
    --output-format=normal,json --output "$out/$proto.txt" "$@" 2> >(tee "$out/$proto.err" >&2)
  # the JSON document follows the normal text in the output file
  sed -n '/^{/,$p' "$out/$proto.txt" > "$out/$proto.json"
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
runs = {p: json.load(open("%s/%s.json" % (out, p))) for p in ("tcp", "rdma")}
def groups(j):
    g = {}
    for job in j["jobs"]:
        d = "read" if job["read"]["io_bytes"] else "write"
        s = job[d]
        cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * job["job_runtime"] / 1000.0
        g[job["jobname"]] = dict(bw=s["bw_bytes"] / 1e6, iops=s["iops"], stdev=s["clat_ns"]["stddev"] / 1e3,
                                 cpu_gb=cpu / max(s["io_bytes"], 1) * 1e9)
    return g
t, r = groups(runs["tcp"]), groups(runs["rdma"])
transport = runs["rdma"].get("nfsbench", {}).get("notes", {}).get("transport", "rdma")
print()
print("%-15s %14s %14s %9s   %-23s %s" % ("group", "tcp", "rdma", "rdma/tcp", "clat stdev µs tcp/rdma", "client CPU-s/GB tcp/rdma"))
for name in t:
    if name not in r:
        continue
    key, unit = ("iops", "IOPS") if "4k" in name else ("bw", "MB/s")
    ratio = r[name][key] / t[name][key] if t[name][key] else float("nan")
    print("%-15s %9.0f %-4s %9.0f %-4s %8.2f×   %9.1f / %-11.1f %.3f / %.3f" % (
        name, t[name][key], unit, r[name][key], unit, ratio, t[name]["stdev"], r[name]["stdev"],
        t[name]["cpu_gb"], r[name]["cpu_gb"]))
print()
for name in t:
    if name in r and t[name]["bw"]:
        print("RDMA is %.2f× TCP for %s" % (r[name]["bw"] / t[name]["bw"], name))
print()
print("RDMA over: %s%s" % (transport, "  — the soft provider stands in for an RDMA NIC (no device on this machine)" if "soft" in transport else ""))
print("one run of each, this machine only; fio-style results in %s/{tcp,rdma}.{txt,json}" % out)
PY
