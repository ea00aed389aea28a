#!/bin/bash
# Two builds of `nfsbench serve` side by side under the hostile-client suite's TCP attacks, with the
# same good client (this build's `nfsbench run`, 4 KiB random reads, iodepth 8, 3 s) undisturbed and
# beside each attack: its IOPS and p99 as ratios, whether it could mount at all, the server's RSS and the
# bytes it logged. Default limits on both (the builds may not share config keys).
#
# Usage: bench/hostile-compare.sh [--before BIN] [--after BIN] [--seconds S] [--attacks LIST] [--repeat N]
#   defaults: --after target/release/nfsbench; --before none (only the one build); --attacks
#   trickle:1100,idle:2000,unread-replies:64,bad-version:1 (attack:connections); --repeat 1
set -euo pipefail
cd "$(dirname "$0")/.."
after=target/release/nfsbench before= attack_seconds=8 repeat=1
attacks=trickle:1100,idle:2000,unread-replies:64,bad-version:1
while [ $# -gt 0 ]; do
  case "$1" in
    --before) before=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --seconds) attack_seconds=$2; shift 2 ;;
    --attacks) attacks=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    *) echo "hostile-compare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked -q -p nfsbench -p hostile
client=target/release/nfsbench hostile=target/release/nfsbench-hostile
work=$(mktemp -d /tmp/nfsbench-hostile-compare.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# "IOPS P99_US" of the good client, or "failed" when it could not run.
good() {
  "$client" run --name=good --rw=randread --bs=4k --iodepth=8 --size=16m --time_based --runtime=3 \
    --output-format=json --filename=good --target 127.0.0.1:/export -o "port=$1,mountport=$1,timeo=20,retrans=1,soft" \
    2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)["jobs"][0]["read"]
print("%.0f %.0f" % (r["iops"], r["clat_ns"]["percentile"]["99.000000"] / 1000))' 2>/dev/null || echo failed
}

measure() {
  local bin=$1 label=$2
  for attack in ${attacks//,/ }; do
    local name=${attack%%:*} conns=${attack##*:}
    rm -f "$work/ready"
    "$bin" serve --listen 127.0.0.1:0 --export /export=mem:256MiB --ready-file "$work/ready" 2> "$work/log" >/dev/null &
    local server=$!
    for _ in $(seq 100); do [ -s "$work/ready" ] && break; sleep 0.1; done
    local port; port=$(sed -n 1p "$work/ready"); port=${port##*:}
    read -r u_iops u_p99 < <(good "$port")
    local log0; log0=$(wc -c < "$work/log")
    "$hostile" "$name" --target "127.0.0.1:$port" --connections "$conns" --seconds "$attack_seconds" >/dev/null 2>&1 &
    local attacker=$!
    sleep 2
    local under; under=$(good "$port")
    local rss; rss=$(awk '/VmRSS/ {printf "%d", $2/1024}' "/proc/$server/status")
    wait "$attacker" || true
    local logged=$(( $(wc -c < "$work/log") - log0 ))
    kill "$server"; wait "$server" 2>/dev/null || true
    if [ "$under" = failed ]; then
      printf "%-8s %-15s %9s %7s  %-28s %8s %12s\n" "$label" "$name" "$u_iops" "$u_p99" "the good client FAILED" "$rss" "$logged"
    else
      read -r a_iops a_p99 <<< "$under"
      printf "%-8s %-15s %9s %7s  %9s %5.2fx %6s %5.2fx %8s %12s\n" "$label" "$name" "$u_iops" "$u_p99" \
        "$a_iops" "$(awk -v a="$a_iops" -v u="$u_iops" 'BEGIN { print a / u }')" "$a_p99" "$(awk -v a="$a_p99" -v u="$u_p99" 'BEGIN { print a / u }')" "$rss" "$logged"
    fi
  done
}

echo "hostile-compare: $(nproc) cores, $(date -u +%Y-%m-%d), loopback; attacks ${attack_seconds}s; good client 4 KiB randread iodepth 8"
printf "%-8s %-15s %9s %7s  %9s %6s %6s %6s %8s %12s\n" build attack "IOPS" "p99µs" "attacked" "ratio" "p99µs" "ratio" "RSS MiB" "log bytes"
for _ in $(seq "$repeat"); do
  [ -n "$before" ] && measure "$before" before
  measure "$after" after
done
