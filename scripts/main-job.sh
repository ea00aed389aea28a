#!/bin/bash
# scripts/main-job.sh — the main job `make run` runs: the embedded RAM server on loopback
# (`nfsbench serve --export /export=mem:SIZE`) measured by nfsbench's own client over TCP with
# jobs/transport-study.fio (1 MiB sequential read/write, 4 KiB random read/write), printed as fio prints it.
# Until `nfsbench compare` exists this is the TCP half of the TCP-vs-RDMA comparison.
#
# usage: scripts/main-job.sh [NFSBENCH] [extra `nfsbench run` arguments, e.g. --runtime=10 --output-format=json]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NFSBENCH=${1:-$repo/target/release/nfsbench}
shift || true
work=$(mktemp -d /tmp/nfsbench-main.XXXXXX)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# 2 jobs × 512 MiB files per group, 4 groups: 4 GiB of RAM at most.
"$NFSBENCH" serve --listen 127.0.0.1:0 --export /export=mem:5GiB --ready-file "$work/ready" \
  > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 200); do [ -s "$work/ready" ] && break; sleep 0.05; done
[ -s "$work/ready" ] || { cat "$work/server.log" >&2; echo "main-job: the server did not start" >&2; exit 1; }
port=$(head -n1 "$work/ready" | sed 's/.*://')
echo "== nfsbench run jobs/transport-study.fio against nfsbench serve (RAM export) on 127.0.0.1:$port, TCP, $(nproc) CPUs"
"$NFSBENCH" run "$repo/jobs/transport-study.fio" --target 127.0.0.1:/export \
  -o "vers=3,proto=tcp,port=$port,mountport=$port" "$@"
