#!/bin/bash
# interop-timeout: 420
# nfsbench-client-study-job — a job file in the form public NFS/RDMA studies publish
# (tests/interop/data/nfs-rdma-study.fio: 1 MiB sequential read and 4 KiB random read, iodepth 64,
# numjobs 4, runtime=60, time_based, group_reporting, ioengine=libaio, direct=1, directory=/mnt/nfs)
# run unmodified by `nfsbench run` against `nfsbench serve`, with only `--runtime=3` added on the command
# line (nfsbench's command-line options before the first --name override the file's [global]; see
# crates/fio-job), and --output-format=json+. Its JSON must:
#   1. load in fio's own json+ parser: fio_jsonplus_clat2csv (Debian's fio) writes one CSV per reported
#      job, its --validate mode re-reads them against the bins, and each CSV's last cumulative count is N;
#   2. load in fio-plot's parser (PyPI fio-plot, lab/peers/fio-plot.sh): jsonimport/jsonparsing give the
#      job's rw/bs/iodepth/numjobs/IOPS/bw/latency back, and `fio-plot -l` draws a PNG chart of it;
#   3. pass a schema-style check of the keys those parsers read (lib/nfsbench_json.py schema): one job per
#      group, fio 3.33's types, numbers consistent with each other and with the job file and the runtime.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"

JOB=$INTEROP_ROOT/tests/interop/data/nfs-rdma-study.fio
RUNTIME=3
need_debs fio python3 python3-six
step "fio-plot (lab/peers/fio-plot.sh)"
PY=$(tmo 300 "$INTEROP_ROOT/lab/peers/fio-plot.sh") || fail "lab/peers/fio-plot.sh could not provide fio-plot (pip install fio-plot into a venv)"
cleanup() { local rc=$?; set +e; stop_server || { [ $rc = 0 ] && { _reason reason "the server did not shut down cleanly"; rc=1; }; }; exit $rc; }
trap cleanup EXIT

# 8 files of 128 MiB (2 jobs x numjobs 4), laid out before the first group runs.
start_server "$SCEN_DIR" --listen 127.0.0.1:0 --export /export=mem:2GiB
P=$SERVER_PORT

step "nfsbench run $(basename "$JOB") --runtime=$RUNTIME --output-format=json+"
grep -v '^;' "$JOB"
rc=0
t0=$(now_ns)
tmo 120 "$NFSBENCH" run "$JOB" --runtime=$RUNTIME --target 127.0.0.1:/export \
  -o "vers=3,proto=tcp,port=$P,mountport=$P" --output-format=json+ --output "$SCEN_DIR/study.json" \
  2> "$SCEN_DIR/study.err" || rc=$?
secs=$(elapsed_since "$t0")
cat "$SCEN_DIR/study.err"
[ $rc = 0 ] || fail "nfsbench run $(basename "$JOB"): exit status $rc$([ $rc = 124 ] && echo " (timed out after 120 s)"): $(grep -v -e '^nfsbench: note:' -e 'Laying out' "$SCEN_DIR/study.err" | head -n1)"
log "run took $secs s (layout of 8 x 128 MiB, then 2 groups of ${RUNTIME} s)"
python3 -m json.tool "$SCEN_DIR/study.json" > /dev/null || fail "study.json is not valid JSON"
check_server_alive "after the study job"

step "schema: the keys fio's JSON parsers read (lib/nfsbench_json.py schema)"
python3 "$INTEROP_ROOT/tests/interop/lib/nfsbench_json.py" schema "$SCEN_DIR/study.json" \
  seq-read-1m:read:1M,rand-read-4k:randread:4k 64 4 $RUNTIME | tee "$SCEN_DIR/schema.out" \
  || fail "study.json: $(grep -m1 '^BAD' "$SCEN_DIR/schema.out" | sed 's/^BAD: //')"
python3 "$INTEROP_ROOT/tests/interop/lib/nfsbench_json.py" clean "$SCEN_DIR/study.json" > "$SCEN_DIR/clean.out" \
  || { cat "$SCEN_DIR/clean.out"; fail "study.json: $(grep -m1 '^BAD' "$SCEN_DIR/clean.out" | sed 's/^BAD: //')"; }

step "fio's parser: fio_jsonplus_clat2csv (fio $(dpkg-query -W -f '${Version}' fio))"
mkdir -p "$SCEN_DIR/csv"
# With Debian's python3 and python3-six (its "#!/usr/bin/env python3" may find another python first).
[ -f /usr/bin/fio_jsonplus_clat2csv ] || fail "Debian's fio package has no /usr/bin/fio_jsonplus_clat2csv (dpkg -L fio)"
CLAT2CSV=(/usr/bin/python3 /usr/bin/fio_jsonplus_clat2csv)
must 60 "fio_jsonplus_clat2csv" "${CLAT2CSV[@]}" "$SCEN_DIR/study.json" "$SCEN_DIR/csv/clat.csv"
must 60 "fio_jsonplus_clat2csv --validate (CSV against the json+ bins)" \
  "${CLAT2CSV[@]}" --validate "$SCEN_DIR/study.json" "$SCEN_DIR/csv/clat.csv"
# Per reported job: the CSV's last read_clat cumulative count (column 6) is the job's clat N.
jobs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$SCEN_DIR/study.json")
for ((i = 0; i < jobs; i++)); do
  csv=$SCEN_DIR/csv/clat_job$i.csv
  [ -s "$csv" ] || fail "fio_jsonplus_clat2csv wrote no $csv"
  n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][int(sys.argv[2])]["read"]["clat_ns"]["N"])' "$SCEN_DIR/study.json" "$i")
  last=$(awk -F', *' 'NR > 1 && $6 != "" {c = $6; p = $7} END {print c, p}' "$csv")
  [ "${last% *}" = "$n" ] || fail "$csv: last cumulative read clat count ${last% *}, the JSON's clat_ns.N is $n"
  awk -v p="${last#* }" 'BEGIN {exit !(p > 0.999999 && p < 1.000001)}' || fail "$csv: the last percentile is ${last#* }, not 1"
  log "clat_job$i.csv: $(($(wc -l < "$csv") - 1)) latency bins, cumulative $n = clat_ns.N"
done

step "fio-plot's parser ($("$PY" -c 'import importlib.metadata as m; print("fio-plot", m.version("fio-plot"))'))"
tmo 120 "$PY" "$INTEROP_ROOT/tests/interop/lib/fioplot_check.py" "$SCEN_DIR/study.json" "$SCEN_DIR/fio-plot" \
  > "$SCEN_DIR/fioplot.out" 2>&1 || { cat "$SCEN_DIR/fioplot.out"; fail "fio-plot's parser: $(grep -m1 -e '^BAD' -e 'Error' "$SCEN_DIR/fioplot.out" | sed 's/^BAD: //')"; }
grep -v '^RW:' "$SCEN_DIR/fioplot.out"
charts=0
for rw in $(sed -n 's/^RW: //p' "$SCEN_DIR/fioplot.out"); do
  png=$SCEN_DIR/fio-plot/$rw.png
  tmo 120 env MPLBACKEND=Agg "$(dirname "$PY")/fio-plot" -i "$SCEN_DIR/fio-plot" -T "nfsbench study job: $rw" -l \
    -r "$rw" -d 64 -n 4 -o "$png" > "$SCEN_DIR/fio-plot-$rw.out" 2>&1 \
    || { cat "$SCEN_DIR/fio-plot-$rw.out"; fail "fio-plot -l -r $rw -d 64 -n 4 failed on nfsbench's JSON"; }
  [ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
    || { cat "$SCEN_DIR/fio-plot-$rw.out"; fail "fio-plot -r $rw made no PNG at $png"; }
  log "fio-plot chart $png ($(stat -c %s "$png") bytes)"
  charts=$((charts + 1))
done
[ $charts = "$jobs" ] || fail "fio-plot drew $charts charts for $jobs jobs"

server_log_check
stop_server || fail "the server did not shut down cleanly"
seq=$(sed -n 's/^seq-read-1m .*BW=\([0-9.]*\) MiB\/s.*/\1/p' "$SCEN_DIR/schema.out")
rnd=$(sed -n 's/^rand-read-4k .*IOPS=\([0-9]*\) .*/\1/p' "$SCEN_DIR/schema.out")
summary "study job (2 groups, numjobs 4, iodepth 64, ${RUNTIME} s each): 1M seq read ${seq} MiB/s, 4K rand read ${rnd} IOPS, json+ read by fio_jsonplus_clat2csv (validated) and fio-plot (values + $charts charts)"
