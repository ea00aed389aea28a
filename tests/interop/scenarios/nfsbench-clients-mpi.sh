#!/bin/bash
# interop-timeout: 300
# nfsbench-clients-mpi — `mpirun -np 3 nfsbench run` against `nfsbench serve`, read by fio-plot as fio's
# client mode. Open MPI's mpirun (Debian's openmpi-bin) starts three clients; each writes and verifies its
# own file (rankN/), then all three run 4 KiB random reads for 2 s. The JSON rank 0 writes must:
#   1. load in fio-plot's parser (PyPI fio-plot, lab/peers/fio-plot.sh) as fio's `--client` output: its
#      "All clients" row carries the merged IOPS, bandwidth and mean latency exactly, its row for this host
#      the sum of the three clients (lib/fioplot_clients_check.py), and `fio-plot -l` draws the chart;
#   2. agree with the server: the clients' READ calls are the server's READ calls, the bytes written
#      3 × the file size.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

RANKS=3
need_debs openmpi-bin
step "fio-plot (lab/peers/fio-plot.sh)"
PY=$(tmo 300 "$INTEROP_ROOT/lab/peers/fio-plot.sh") || fail "lab/peers/fio-plot.sh could not provide fio-plot (pip install fio-plot into a venv)"
cleanup() { local rc=$?; set +e; stop_server || { [ $rc = 0 ] && { _reason reason "the server did not shut down cleanly"; rc=1; }; }; exit $rc; }
trap cleanup EXIT

start_server "$SCEN_DIR" --listen 127.0.0.1:0 --export /export=mem:256MiB
P=$SERVER_PORT
MPIRUN=(mpirun --oversubscribe -np $RANKS)
[ "$(id -u)" = 0 ] && MPIRUN=(mpirun --allow-run-as-root --oversubscribe -np $RANKS)

run_ranks() { # run_ranks NAME ARGS...: mpirun ... nfsbench run ARGS --output NAME.json, fails with rank 0's reason
  local name=$1; shift
  local rc=0
  step "${MPIRUN[*]} nfsbench run $*"
  tmo 120 "${MPIRUN[@]}" "$NFSBENCH" run "$@" --target 127.0.0.1:/export -o "vers=3,proto=tcp,port=$P,mountport=$P" \
    --eta never --output-format=json+ --output "$SCEN_DIR/$name.json" > "$SCEN_DIR/$name.out" 2> "$SCEN_DIR/$name.err" || rc=$?
  { grep -v '^nfsbench: note:' "$SCEN_DIR/$name.err" || true; } | head -n 20
  [ $rc = 0 ] || fail "mpirun nfsbench run ($name): exit status $rc: $(grep -v -e '^nfsbench: note:' "$SCEN_DIR/$name.err" | head -n1)"
  python3 -m json.tool "$SCEN_DIR/$name.json" > /dev/null || fail "$name.json is not valid JSON"
}

run_ranks write --name=mpi --rw=write --bs=64k --size=8m --iodepth=4 --verify=crc32c
# fio-plot reads iodepth and numjobs from "job options", which (as in fio) list only the options given.
run_ranks read --name=mpi --rw=randread --bs=4k --size=8m --iodepth=8 --numjobs=1 --runtime=2 --time_based
check_server_alive "after $RANKS clients"

step "the merged result against each client (lib/fioplot_clients_check.py, fio-plot's parser)"
tmo 120 "$PY" "$INTEROP_ROOT/tests/interop/lib/fioplot_clients_check.py" "$SCEN_DIR/read.json" "$SCEN_DIR/fio-plot" \
  > "$SCEN_DIR/fioplot.out" 2>&1 || { cat "$SCEN_DIR/fioplot.out"; fail "fio-plot's parser: $(grep -m1 -e '^BAD' -e 'Error' "$SCEN_DIR/fioplot.out" | sed 's/^BAD: //')"; }
cat "$SCEN_DIR/fioplot.out"
png=$SCEN_DIR/fio-plot/randread.png
tmo 120 env MPLBACKEND=Agg "$(dirname "$PY")/fio-plot" -i "$SCEN_DIR/fio-plot" -T "nfsbench, $RANKS clients" -l \
  -r randread -d 8 -n 1 --include-hosts "All clients" -o "$png" > "$SCEN_DIR/fio-plot-chart.out" 2>&1 \
  || { cat "$SCEN_DIR/fio-plot-chart.out"; fail "fio-plot -l --include-hosts 'All clients' failed on nfsbench's client-mode JSON"; }
[ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
  || { cat "$SCEN_DIR/fio-plot-chart.out"; fail "fio-plot made no PNG at $png"; }
log "fio-plot chart $png ($(stat -c %s "$png") bytes)"

step "the clients' totals against the server's counters"
stop_server || fail "the server did not shut down cleanly"
server_log_check
calls() { awk -v p="$1" '$1 == "NFSv3" && $2 == p {print $3}' "$SERVER_LOG"; }
merged() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a=[j for j in d["client_stats"] if j["jobname"]=="All clients"][0]; print(a[sys.argv[2]][sys.argv[3]])' "$@"; }
reads=$(merged "$SCEN_DIR/read.json" read total_ios)
written=$(merged "$SCEN_DIR/write.json" write io_bytes)
[ "$(calls READ)" -ge "$reads" ] || fail "the server counted $(calls READ) READ calls, the clients $reads random reads"
# Verify reads every written block back: READ calls = random reads + the write pass's verify reads (8 MiB / 64 KiB each).
[ "$(calls READ)" = $((reads + RANKS * 128)) ] || fail "the server counted $(calls READ) READ calls, the clients $reads + $((RANKS * 128)) verify reads"
[ "$written" = $((RANKS * 8 * 1048576)) ] || fail "All clients wrote $written bytes, not $RANKS x 8 MiB"
[ "$(calls WRITE)" = $((RANKS * 128)) ] || fail "the server counted $(calls WRITE) WRITE calls, the clients $((RANKS * 128))"
iops=$(merged "$SCEN_DIR/read.json" read iops)
summary "$RANKS clients under mpirun: 4K random read All clients $(printf %.0f "$iops") IOPS = fio-plot's row; server READ/WRITE calls match the clients'"
