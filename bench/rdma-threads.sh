#!/bin/bash
# bench/rdma-threads.sh — what the RDMA server's network threads (`serve --rdma-threads`) do on this
# machine: `nfsbench serve --rdma` on loopback with 1 thread and with N, and `nfsbench run` beside it
# (4 KiB random reads, JOBS jobs at iodepth 32 on nconnect=JOBS, so JOBS queue pairs dealt to the
# threads). Runs alternate between the two servers; per run: IOPS, the server's CPU per I/O and its
# context switches per I/O (`perf stat -p` over the run), then the median ratio N threads / 1 thread.
# The soft provider stands in for an RDMA NIC (client and server on one host).
#
# usage: bench/rdma-threads.sh [--threads N] [--jobs J] [--reps R] [--runtime S] [--provider soft|verbs]
#   defaults: --threads 2 --jobs 2 --reps 3 --runtime 4 --provider soft
set -euo pipefail
cd "$(dirname "$0")/.."
threads=2 jobs=2 reps=3 runtime=4 provider=soft
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --provider) provider=$2; shift 2 ;;
    *) echo "rdma-threads.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v perf >/dev/null || { echo "rdma-threads.sh: needs perf (linux-perf)" >&2; exit 1; }
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked -q -p nfsbench
bin=target/release/nfsbench
work=$(mktemp -d /tmp/nfsbench-rdma-threads.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# run_once THREADS: one server, the file laid out, one measured run; prints "IOPS CPU_US_PER_IO CS_PER_IO".
run_once() {
  local t=$1 dir=$work/t$1
  mkdir -p "$dir"; rm -f "$dir/ready"
  "$bin" serve --listen 127.0.0.1:0 --export /export=mem:1GiB --rdma --rdma-provider "$provider" \
    --rdma-listen 127.0.0.1:0 --rdma-threads "$t" --ready-file "$dir/ready" 2> "$dir/log" >/dev/null &
  local server=$!
  for _ in $(seq 100); do [ -s "$dir/ready" ] && break; sleep 0.1; done
  local port rport
  port=$(sed -n 1p "$dir/ready"); port=${port##*:}
  rport=$(sed -n 2p "$dir/ready"); rport=${rport##*:}
  "$bin" run --name=lay --rw=write --bs=1m --size=256m --filename=f --target 127.0.0.1:/export \
    -o "port=$port,mountport=$port" >/dev/null 2>&1
  perf stat -e context-switches,task-clock -p "$server" -o "$dir/perf" -- sleep "$runtime" &
  local perf=$!
  "$bin" run --name=rr --rw=randread --bs=4k --iodepth=32 --numjobs="$jobs" --size=256m --filename=f \
    --time_based --runtime="$runtime" --output-format=json --target 127.0.0.1:/export \
    -o "proto=rdma,port=$rport,mountport=$port,nconnect=$jobs" --rdma-provider "$provider" > "$dir/run.json"
  wait "$perf"
  kill "$server"; wait "$server" 2>/dev/null || true
  python3 - "$dir" "$runtime" <<'EOF'
import json, re, sys
d, runtime = sys.argv[1], float(sys.argv[2])
jobs = json.load(open(d + "/run.json"))["jobs"]
iops = sum(j["read"]["iops"] for j in jobs)
text = open(d + "/perf").read()
switches = float(re.search(r"([\d,]+)\s+context-switches", text).group(1).replace(",", ""))
msec = float(re.search(r"([\d,.]+)\s+msec task-clock", text).group(1).replace(",", ""))
ios = iops * runtime
print("%.0f %.2f %.3f" % (iops, msec * 1000 / ios, switches / ios))
EOF
}

echo "rdma-threads: $(nproc) cores, $(date -u +%Y-%m-%d), loopback, provider $provider; 4 KiB random read," \
  "$jobs job(s) at iodepth 32 on nconnect=$jobs, ${runtime} s per run, $reps rep(s)"
[ "$provider" = soft ] && echo "(the soft provider stands in for an RDMA NIC: one-sided copies by the CPU)"
printf "%-8s %-4s %9s %14s %18s\n" threads rep IOPS "server µs/IO" "server cswitch/IO"
ratios=()
for rep in $(seq "$reps"); do
  read -r one_iops one_cpu one_cs < <(run_once 1)
  printf "%-8s %-4s %9s %14s %18s\n" 1 "$rep" "$one_iops" "$one_cpu" "$one_cs"
  read -r n_iops n_cpu n_cs < <(run_once "$threads")
  printf "%-8s %-4s %9s %14s %18s\n" "$threads" "$rep" "$n_iops" "$n_cpu" "$n_cs"
  ratios+=("$(awk -v a="$n_iops" -v b="$one_iops" 'BEGIN { printf "%.2f", a / b }')")
done
median=$(printf "%s\n" "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "IOPS with $threads threads / 1 thread: median ${median}× [$(printf "%s " "${ratios[@]}")]"
