#!/bin/bash
# tests/interop/guest/compare.sh OUT — runs INSIDE the lab VM (lab/vm/run.sh), as root.
#
# `nfsbench compare --target $RXE_IP:/srv/nfs` against knfsd exporting a tmpfs, with two cases — tcp
# (vers=3,proto=tcp) and rdma (vers=3,proto=rdma,port=20049 over Soft-RoCE, the verbs provider) — and
# two workloads (1 MiB sequential read, 4 KiB random write), 2 repetitions of 300 ms cells. The wire
# baselines run against `nfsbench serve --baseline-listen` on the same address (TCP and RDMA).
# Checks: exit status 0; both cases ran, the RDMA one over verbs on rxe0; every cell has 2 repetitions
# with bytes moved; the ratios and both wire baselines are there; report.html/results.md/results.csv and
# the fio JSON of every repetition exist; knfsd's own byte counters (/proc/net/rpc/nfsd `io`) grew by at
# least the bytes the report says were measured; knfsd counted no bad RPC call.
set -euo pipefail
OUT=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The prelude the compare scenarios share: common.sh, the EXIT trap stopping $SERVER_PID, Soft-RoCE.
. "$here/compare-lib.sh"
. "$INTEROP_ROOT/lab/vm/guest/knfsd.sh" || fail "knfsd setup (lab/vm/guest/knfsd.sh) failed"
log "knfsd: ports $(tr '\n' ' ' < /proc/fs/nfsd/portlist); rxe0 at $RXE_IP"

step "the wire-baseline responders: nfsbench serve --baseline-listen on $RXE_IP (verbs over rxe0)"
start_server "$OUT" --listen "$RXE_IP:0" --export /unused=mem:16MiB --rdma --rdma-provider verbs \
  --rdma-listen "$RXE_IP:0" --baseline-listen "$RXE_IP:0"
for _ in $(seq 100); do [ "$(wc -l < "$OUT/server.ready")" -ge 4 ] && break; sleep 0.1; done
[ "$(wc -l < "$OUT/server.ready")" -ge 4 ] || { cat "$OUT/server.ready"; fail "serve --baseline-listen wrote no baseline addresses"; }
WIRE="$(sed -n 3p "$OUT/server.ready"),$(sed -n 4p "$OUT/server.ready")"
log "wire peer: $WIRE"

io() { awk '$1 == "io" { print $2 + $3 }' /proc/net/rpc/nfsd; }
bad() { awk '$1 == "rpc" { print $3 + $4 + $5 + $6 }' /proc/net/rpc/nfsd; }
IO0=$(io) BAD0=$(bad)
step "nfsbench compare --target $RXE_IP:$NFSD_EXPORT (tcp, rdma × seq-read-1m, rand-write-4k, 2 reps)"
rc=0
tmo 420 "$NFSBENCH" compare --target "$RXE_IP:$NFSD_EXPORT" \
  --case tcp=vers=3,proto=tcp --case rdma=vers=3,proto=rdma,port=20049,mountproto=tcp \
  --workloads seq-read-1m,rand-write-4k --quick --reps 2 --size 8m --rdma-provider verbs \
  --wire-peer "$WIRE" --out "$OUT/compare" > "$OUT/compare.out" 2> "$OUT/compare.err" || rc=$?
cat "$OUT/compare.out"
tail -n 5 "$OUT/compare.err"
[ $rc = 0 ] || fail "nfsbench compare exited with status $rc: $(tail -n 1 "$OUT/compare.err")"
IO1=$(io) BAD1=$(bad)
[ "$BAD1" = "$BAD0" ] || fail "knfsd counted $((BAD1 - BAD0)) bad RPC calls during the comparison"

python3 - "$OUT/compare" "$((IO1 - IO0))" <<'PY' || fail "$(tail -n 1 "$OUT/check.err" 2>/dev/null || echo 'report check failed')"
import csv, json, os, sys
out, knfsd_bytes = sys.argv[1], int(sys.argv[2])
def bad(msg):
    open(os.path.join(os.environ["SCEN_DIR"], "check.err"), "w").write(msg + "\n")
    print("BAD:", msg); sys.exit(1)
r = json.load(open(os.path.join(out, "report.json")))
cases = {c["name"]: c for c in r["cases"]}
if set(cases) != {"tcp", "rdma"}: bad("cases %s" % sorted(cases))
if cases["tcp"]["transport"] != "tcp": bad("tcp case transport %r" % cases["tcp"]["transport"])
if "verbs" not in cases["rdma"]["transport"] or "rxe0" not in cases["rdma"]["transport"]:
    bad("rdma case transport %r, expected the verbs provider on rxe0" % cases["rdma"]["transport"])
if len(r["cells"]) != 4: bad("%d cells, expected 4" % len(r["cells"]))
for c in r["cells"]:
    if c["bandwidth_mbs"]["n"] != 2 or c["bandwidth_mbs"]["mean"] <= 0: bad("cell %s/%s: %s" % (c["case"], c["workload"], c["bandwidth_mbs"]))
    if c["server_cpu_per_gb"] is not None: bad("an external server's CPU cannot be known, yet the cell has one")
    for f in c["files"]:
        if not os.path.getsize(os.path.join(out, f)): bad("empty " + f)
if len(r["ratios"]) != 2: bad("%d ratios, expected rdma vs tcp for 2 workloads" % len(r["ratios"]))
wire = {w["proto"]: w for w in r["wire"]}
if set(wire) != {"tcp", "rdma"} or min(w["bandwidth_mbs"] for w in wire.values()) <= 0: bad("wire baselines %s" % r["wire"])
if "rxe0" not in wire["rdma"]["description"]: bad("RDMA wire baseline not over rxe0: " + wire["rdma"]["description"])
for f in ("report.html", "results.md", "results.csv", "reps.csv"):
    if not os.path.getsize(os.path.join(out, f)): bad("empty " + f)
measured = sum(int(row["bytes"]) for row in csv.DictReader(open(os.path.join(out, "reps.csv"))))
if knfsd_bytes < measured: bad("knfsd moved %d bytes, the report says %d were measured" % (knfsd_bytes, measured))
print("report ok: %d cells, ratios %s; measured %d bytes, knfsd moved %d (layout and ramps included)" % (
    len(r["cells"]), ", ".join("%s %.2fx" % (x["workload"], x["ratio"]["mean"]) for x in r["ratios"]), measured, knfsd_bytes))
PY
summary "nfsbench compare against knfsd: tcp and rdma (verbs, rxe0) × 2 workloads × 2 reps; wire baselines over rxe0; knfsd's byte counters cover the measured bytes; $(grep -m1 'rdma vs tcp' "$OUT/compare.out")"
