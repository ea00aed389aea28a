#!/bin/bash
# The hostile-client soak: `nfsbench serve` (RAM export, TCP and soft RDMA) under 8 good clients (half over
# TCP, half over RPC-over-RDMA; half of each NFSv3, half NFSv4.1) running the studies' four workloads
# (jobs/transport-study.fio, verify on) in a loop, while the security suite's attacks run in rotation
# beside them (nfsbench-hostile: trickle, idle, unread-replies, bad-version, rdma-busy-counters, and the
# NFSv4.1 ones: v4-bad-compounds, v4-slot-hammer, v4-client-storm, v4-forged-stateids, v4-open-flood,
# v4-lock-storm, v4-backchannel-silent, v4-backchannel-garbage, v4-reply-flood). It fails on a
# server crash, a client error or verify error, or memory that keeps growing; it prints the server's
# resident memory over time, each attack's own report and every client pass.
#
# Usage: scripts/soak.sh [--seconds N] [--clients N] [--attack-seconds N] [--out DIR]
#   defaults: 600 s, 8 clients, 30 s per attack, ./nfsbench-soak
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=600 clients=8 attack_seconds=30 out=nfsbench-soak
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --attack-seconds) attack_seconds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "soak.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --locked -q -p nfsbench -p hostile
bin=target/release
rm -rf "$out"; mkdir -p "$out"

# The server-wide bound the soak holds the server to (the unread-replies attack pushes against it).
budget=$((256 << 20))
cat > "$out/serve.toml" <<EOF
[limits]
max_server_in_flight_bytes = $budget
EOF
port_file="$out/ready"
"$bin/nfsbench" serve --listen 127.0.0.1:0 --rdma --rdma-provider soft --rdma-listen 127.0.0.1:0 \
  --export /export=mem:4GiB --config "$out/serve.toml" --ready-file "$port_file" \
  > "$out/serve.out" 2> "$out/serve.log" &
server=$!
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.1; done
addr=$(sed -n 1p "$port_file"); port=${addr##*:}
rdma=$(sed -n 2p "$port_file"); rdma_port=${rdma##*:}
echo "soak: server pid $server on $addr (RDMA on $rdma, soft provider standing in for a NIC), $clients clients," \
  "${seconds}s, attacks ${attack_seconds}s each in rotation"

deadline=$(( $(date +%s) + seconds ))
# One good client: the four workloads, 8 s each, over and over; odd clients over TCP, even ones over
# RPC-over-RDMA; clients 3 and 4 of every four over NFSv4.1 (no port mapper, no MOUNT: the v4 port alone).
client() {
  local k=$1 pass=0 options="port=$port,mountport=$port,timeo=50,retrans=5" provider=()
  if [ $((k % 2)) = 0 ]; then
    options="proto=rdma,port=$rdma_port,mountport=$port,timeo=50,retrans=5"; provider=(--rdma-provider soft)
  fi
  if [ $((k % 4)) = 3 ]; then options="vers=4.1,port=$port,timeo=50,retrans=5"; fi
  if [ $((k % 4)) = 0 ]; then options="vers=4.1,proto=rdma,port=$rdma_port,timeo=50,retrans=5"; fi
  while [ "$(date +%s)" -lt "$deadline" ]; do
    pass=$((pass + 1))
    if ! "$bin/nfsbench" run jobs/transport-study.fio --size=64m --numjobs=1 --runtime=8 --ramp_time=0 \
        --verify=crc32c --directory="client$k" --output-format=json --output "$out/client$k-pass$pass.json" \
        "${provider[@]}" --target 127.0.0.1:/export -o "$options" \
        2> "$out/client$k-pass$pass.err"; then
      echo "soak: client $k pass $pass FAILED: $(tail -3 "$out/client$k-pass$pass.err")"
      return 1
    fi
    echo "soak: client $k pass $pass clean"
  done
}
pids=()
for k in $(seq "$clients"); do client "$k" & pids+=($!); done

# Left out of the rotation: v4-client-hoard and v4-lock-owner-storm, whose server bugs (docs/security.md,
# "NFSv4.1") would fail the NFSv4.1 clients' passes whatever else holds.
attacks() {
  local n=0
  while [ "$(date +%s)" -lt "$deadline" ]; do
    for a in trickle idle unread-replies bad-version rdma-busy-counters v4-bad-compounds v4-slot-hammer \
        v4-client-storm v4-forged-stateids v4-open-flood v4-lock-storm v4-backchannel-silent \
        v4-backchannel-garbage v4-reply-flood; do
      [ "$(date +%s)" -lt "$deadline" ] || return 0
      local conns=64 pace=()
      [ "$a" = trickle ] && conns=1100
      [ "$a" = idle ] && conns=2000
      [ "$a" = bad-version ] && conns=2
      [ "$a" = rdma-busy-counters ] && conns=4
      case "$a" in
        v4-bad-compounds|v4-client-storm|v4-forged-stateids|v4-open-flood) conns=2 ;;
        v4-slot-hammer) conns=4 ;;
        v4-lock-storm|v4-reply-flood) conns=1 ;;
        v4-backchannel-*) conns=8 ;;
      esac
      # Past its caps every OPEN still makes a file: at a busy client's pace the export's files stay few.
      [ "$a" = v4-open-flood ] && pace=(--per-second 1000)
      n=$((n + 1))
      local report
      report=$("$bin/nfsbench-hostile" "$a" --target "$addr" --rdma "$rdma" --connections "$conns" \
        --seconds "$attack_seconds" "${pace[@]}" 2>&1 | tail -1)
      echo "soak: attack $n: $a ($conns connections, ${attack_seconds}s): $report"
      # The NFSv4.1 attacks check every answer they get: a wrong one fails the soak.
      case "$report" in *'"unexpected":0'*|*trickle*|*idle*|*unread*|*bad-version*|*rdma-busy*) ;;
        *) echo "$a: $report" >> "$out/wrong-answers" ;; esac
    done
  done
}
attacks & attacker=$!

# Resident memory every 10 s while the soak runs.
rss_log="$out/rss.tsv"
: > "$rss_log"
while [ "$(date +%s)" -lt "$deadline" ]; do
  kill -0 "$server" 2>/dev/null || { echo "soak: the server DIED"; exit 1; }
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
  echo -e "$(( seconds - (deadline - $(date +%s)) ))\t$rss" >> "$rss_log"
  sleep 10
done

status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
wait "$attacker" || true
kill -0 "$server" 2>/dev/null || { echo "soak: the server DIED"; status=1; }
passes=$(ls "$out"/client*-pass*.json 2>/dev/null | wc -l)
# A verify failure is logged as "job 'NAME': verify: ..." (and fails its pass).
verify_errors=$(grep -l "': verify: " "$out"/client*-pass*.err 2>/dev/null | wc -l || true)
# Memory flat: the largest RSS of the last third of the run is within 25% (+32 MiB) of the largest of
# the first third (the RAM export's files are laid out in the first passes).
read -r first last < <(awk -v n="$(wc -l < "$rss_log")" '
  NR <= n/3 { if ($2 > a) a = $2 } NR > 2*n/3 { if ($2 > b) b = $2 } END { print a, b }' "$rss_log")
echo "soak: $passes client passes, $verify_errors with verify errors; server RSS max first third ${first} KiB, last third ${last} KiB; log $(wc -c < "$out/serve.log") bytes"
awk '{ printf "  t=%ss rss=%d MiB\n", $1, $2/1024 }' "$rss_log"
if [ "$verify_errors" != 0 ]; then status=1; fi
if [ -s "$out/wrong-answers" ]; then
  echo "soak: attacks got wrong answers from the server:"; cat "$out/wrong-answers"; status=1
fi
if [ "${last:-0}" -gt $(( ${first:-0} * 5 / 4 + 32768 )) ]; then
  echo "soak: memory grew"; status=1
fi
[ $status = 0 ] && echo "soak: passed" || echo "soak: FAILED"
exit $status
