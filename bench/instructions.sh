#!/bin/bash
# bench/instructions.sh — user-space instructions per I/O of nfsbench's client and server (callgrind),
# over TCP and RPC-over-RDMA (soft provider), for 4 KiB random reads and writes at iodepth 32.
#
# Timing figures on a small or shared machine drift by ±15% over minutes; an instruction count does not
# drift, so it is what tells whether a change to the per-call path made it cheaper. It says nothing about
# the kernel's share (system calls, wake-ups) or cache misses: pair it with a timed, interleaved run.
# Method: the side measured runs under `valgrind --tool=callgrind` twice, once for 2,000 I/Os and once
# for --ios I/Os, each time against a native peer on loopback; the difference over the difference in
# I/Os is its cost per I/O, start-up and the file's layout (64 MiB or more written over TCP first) cancelling
# out. The server is a fresh `nfsbench serve --export /export=mem:1GiB` (with `--rdma --rdma-provider
# soft` for RDMA) each time. Under valgrind the measured side runs ~50× slower, so its peer batches
# more than it would natively: per-batch costs are undercounted.
#
# usage: bench/instructions.sh [--ios N] [--cells LIST] [--transports LIST] [--sides LIST] [--nfsbench PATH]
#   --ios N             I/Os of the longer run (default 12000; the shorter one is 2000)
#   --cells LIST        rr4k (random read), rw4k (random write); default both
#   --transports LIST   tcp, rdma; default both
#   --sides LIST        client, server; default both
#   --nfsbench PATH     the binary measured (default: target/release/nfsbench, built first); the native
#                       peer is the same binary
set -euo pipefail
cd "$(dirname "$0")/.."
ios=12000 cells=rr4k,rw4k transports=tcp,rdma sides=client,server bin=
while [ $# -gt 0 ]; do
  case "$1" in
    --ios) ios=$2; shift 2 ;;
    --cells) cells=$2; shift 2 ;;
    --transports) transports=$2; shift 2 ;;
    --sides) sides=$2; shift 2 ;;
    --nfsbench) bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    *) echo "instructions.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$ios" -gt 2000 ] 2>/dev/null || { echo "instructions.sh: --ios must be over 2000" >&2; exit 2; }
for c in ${cells//,/ }; do [[ $c == rr4k || $c == rw4k ]] || { echo "instructions.sh: unknown cell $c" >&2; exit 2; }; done
for t in ${transports//,/ }; do [[ $t == tcp || $t == rdma ]] || { echo "instructions.sh: unknown transport $t" >&2; exit 2; }; done
for s in ${sides//,/ }; do [[ $s == client || $s == server ]] || { echo "instructions.sh: unknown side $s" >&2; exit 2; }; done
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
if [ -z "$bin" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
  cargo build --release --locked -q -p nfsbench
  bin=target/release/nfsbench
fi
bin=$(realpath "$bin")
work=$(mktemp -d /tmp/nfsbench-instructions.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
port=$((21000 + RANDOM % 2000))

# serve WRAPPER...: starts a server (under WRAPPER, if any) on $port (RDMA on $port+1); sets SERVER
serve() {
  rm -f "$work/ready"
  "$@" "$bin" serve --listen "127.0.0.1:$port" --export /export=mem:1GiB --rdma --rdma-provider soft \
    --rdma-listen "127.0.0.1:$((port + 1))" --ready-file "$work/ready" >"$work/serve.log" 2>"$work/serve.err" &
  SERVER=$!
  for _ in $(seq 600); do [ -s "$work/ready" ] && return; sleep 0.1; done
  echo "instructions.sh: the server did not start:" >&2; cat "$work/serve.err" >&2; exit 1
}

# job WRAPPER TRANSPORT RW COUNT: COUNT 4 KiB I/Os of RW on the laid-out file, under WRAPPER if any
job() {
  local wrapper=$1 transport=$2 rw=$3 count=$4 opts
  if [ "$transport" = rdma ]; then opts="vers=3,proto=rdma,port=$((port + 1)),mountport=$port"
  else opts="vers=3,proto=tcp,port=$port,mountport=$port"; fi
  # shellcheck disable=SC2086  # the wrapper is words
  $wrapper "$bin" run --name=i --rw="$rw" --bs=4k --iodepth=32 --size=$((count * 4))k --filename=f \
    --target 127.0.0.1:/export -o "$opts" --output-format=json --output="$work/run.json" 2>>"$work/run.err"
}

# layout: the file the I/Os go to, written over TCP: 64 MiB, or the longer run's span if more
layout() {
  local mib=$(( (ios * 4 + 1023) / 1024 ))
  [ "$mib" -ge 64 ] || mib=64
  "$bin" run --name=layout --rw=write --bs=1m --iodepth=8 --size=${mib}m --filename=f --target 127.0.0.1:/export \
    -o "vers=3,proto=tcp,port=$port,mountport=$port" --output-format=json >/dev/null 2>>"$work/run.err"
}

# collected FILE: the instructions callgrind counted, from its log
collected() { sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$1" | tail -1; }

# measure SIDE TRANSPORT RW: prints instructions per I/O
measure() {
  local side=$1 transport=$2 rw=$3 n total=()
  for n in 2000 "$ios"; do
    local cg=(valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" --log-file="$work/cg.log")
    if [ "$side" = client ]; then
      serve
      layout
      job "${cg[*]}" "$transport" "$rw" "$n"
      kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
    else
      serve "${cg[@]}"
      layout
      job "" "$transport" "$rw" "$n"
      # SIGINT: the server stops in order and callgrind writes its counts.
      kill -INT "$SERVER"; wait "$SERVER" 2>/dev/null || true
    fi
    total+=("$(collected "$work/cg.log")")
    [ -n "${total[-1]}" ] || { echo "instructions.sh: callgrind counted nothing:" >&2; cat "$work/cg.log" "$work/run.err" >&2; exit 1; }
  done
  echo $(( (total[1] - total[0]) / (ios - 2000) ))
}

echo "user-space instructions per 4 KiB I/O, iodepth 32 (callgrind: $ios I/Os minus 2000); $(basename "$bin")"
echo "RDMA over the soft provider (shared memory, one host); the one-sided copies are the server's"
printf '%-8s %-10s %-6s %s\n' side transport cell instructions/IO
for side in ${sides//,/ }; do
  for transport in ${transports//,/ }; do
    for cell in ${cells//,/ }; do
      rw=randread; [ "$cell" = rw4k ] && rw=randwrite
      printf '%-8s %-10s %-6s %s\n' "$side" "$transport" "$cell" "$(measure "$side" "$transport" "$rw")"
    done
  done
done
