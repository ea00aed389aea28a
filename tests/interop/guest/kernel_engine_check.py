#!/usr/bin/env python3
"""kernel_engine_check.py OUT SERVER_BYTES EXPECT — checks a `compare --engine kernel` report.

EXPECT is a blank-separated list of
    NAME:PROTO:TRANSPORTS[:FLAGGED_OPTION]   a measured case: the negotiated proto, the number of
                                             transports, and the one option the kernel must have changed
                                             (the report flags it), if any
    NAME:failed:TEXT                         a case that failed, its reason containing TEXT
SERVER_BYTES: what the server's own counters moved during the plan (-1: not known); it must be at
least the bytes the report says were measured. Prints one line per case; exits 1 naming the first
problem.
"""
import csv
import json
import os
import sys

from checklib import bad, check_failed, load_report

out, server_bytes, expect = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()



r, cases = load_report(out, expect)
for e in expect:
    name, kind, rest = (e.split(":", 2) + [""])[:3]
    c = cases[name]
    if c.get("engine") != "kernel":
        bad("%s: engine %r" % (name, c.get("engine")))
    if kind == "failed":
        if any(x["case"] == name for x in r["cells"]):
            bad("%s failed, yet it has cells" % name)
        check_failed(name, c, rest)
        continue
    transports, flagged = (rest.split(":") + [""])[:2]
    if c.get("failed"):
        bad("%s: failed: %s" % (name, c["failed"]))
    n = c.get("negotiation")
    if not n:
        bad("%s: no negotiation in the report" % name)
    if "proto=%s" % kind not in n["negotiated"].split(","):
        bad("%s: negotiated %r, expected proto=%s" % (name, n["negotiated"], kind))
    if n["transports"] != int(transports):
        bad("%s: %d transports, expected %s" % (name, n["transports"], transports))
    if flagged:
        if not any(d.startswith(flagged + ":") for d in n["differs"]):
            bad("%s: %s should be flagged as negotiated differently: %s" % (name, flagged, n["differs"]))
    elif n["differs"]:
        bad("%s: unexpected differences from what was asked: %s" % (name, n["differs"]))
    cells = [x for x in r["cells"] if x["case"] == name]
    if len(cells) != len(r["workloads"]):
        bad("%s: %d cells for %d workloads" % (name, len(cells), len(r["workloads"])))
    chunks = 0
    for x in cells:
        k = x.get("kernel")
        if not k or k["rpcs"] <= 0 or x["bandwidth_mbs"]["mean"] <= 0:
            bad("%s/%s: no kernel counters or no bandwidth: %s" % (name, x["workload"], k))
        if kind == "rdma":
            if not k.get("rdma"):
                bad("%s/%s: no xprtrdma counters" % (name, x["workload"]))
            chunks += k["rdma"]["read_chunks"] + k["rdma"]["write_chunks"] + k["rdma"]["reply_chunks"]
    if kind == "rdma" and chunks == 0:
        bad("%s: no RDMA chunk was counted by xprtrdma over the whole case" % name)
    print("%s: %s; %d transport(s)%s; %s" % (name, n["negotiated"], n["transports"],
          "; flagged: " + "; ".join(n["differs"]) if n["differs"] else "",
          ", ".join("%s %.0f MB/s %d RPCs" % (x["workload"], x["bandwidth_mbs"]["mean"], x["kernel"]["rpcs"]) for x in cells)))
for f in ("report.html", "results.md", "results.csv", "reps.csv"):
    if not os.path.getsize(os.path.join(out, f)):
        bad("empty " + f)
md = open(os.path.join(out, "results.md")).read()
if "asked vs negotiated" not in md:
    bad("results.md has no asked-vs-negotiated table")
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
if not rows or any(row["engine"] != "kernel" for row in rows):
    bad("results.csv: engine column %s" % [row.get("engine") for row in rows])
measured = sum(int(row["bytes"]) for row in csv.DictReader(open(os.path.join(out, "reps.csv"))))
if server_bytes >= 0:
    if server_bytes < measured:
        bad("the server moved %d bytes, the report says %d were measured" % (server_bytes, measured))
    print("measured %d bytes; the server's counters moved %d (layout and ramps included)" % (measured, server_bytes))
