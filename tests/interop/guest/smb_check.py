#!/usr/bin/env python3
"""smb_check.py OUT EXPECT — checks a `compare` report of SMB cases.

EXPECT is a blank-separated list of
    NAME:TRANSPORT:CHANNELS   a measured case over tcp or rdma (SMB Direct) with that many channels: the
                              transport proven from /proc/fs/cifs/DebugData in every cell, dialect 3.1.1,
                              the share's byte counters covering what fio reports, no password in any
                              report file
    NAME:failed:TEXT          a case that failed, its reason containing TEXT
Prints one line per case; exits 1 naming the first problem.
"""
import glob
import json
import os
import sys

from checklib import bad, check_distance, check_failed, load_report

out, expect = sys.argv[1], sys.argv[2].split()



r, cases = load_report(out, expect)
for e in expect:
    name, transport, rest = (e.split(":", 2) + [""])[:3]
    c = cases[name]
    if transport == "failed":
        check_failed(name, c, rest)
        continue
    if c.get("failed"):
        bad("%s: failed: %s" % (name, c["failed"]))
    if c.get("kind") != "smb" or c.get("engine") != "kernel":
        bad("%s: kind %r engine %r" % (name, c.get("kind"), c.get("engine")))
    n = c.get("negotiation") or {}
    fields = dict(f.split("=", 1) for f in n.get("negotiated", "").split(",") if "=" in f)
    if fields.get("dialect") != "3.1.1" or fields.get("transport") != transport:
        bad("%s: negotiated %r, expected dialect 3.1.1 over %s" % (name, n.get("negotiated"), transport))
    if n["transports"] != int(rest):
        bad("%s: %d channels, expected %s (differs: %s)" % (name, n["transports"], rest, n["differs"]))
    if n["differs"]:
        bad("%s: not granted as asked: %s" % (name, n["differs"]))
    cells = [x for x in r["cells"] if x["case"] == name]
    # Sweep points ("seq-read-1m@rtt=22.53ms") are cells of their own beside the workloads'.
    base = [x for x in cells if "@" not in x["workload"]]
    if len(base) != len(r["workloads"]):
        bad("%s: %d cells for %d workloads" % (name, len(base), len(r["workloads"])))
    for x in cells:
        for f in x["files"]:
            doc = json.load(open(os.path.join(out, f)))
            k = doc["nfsbench"]["kernel"]
            smbdirect = "an SMBDirect section" in k["proof"]
            if smbdirect != (transport == "rdma"):
                bad("%s: the proof does not show %s: %r" % (f, transport, k["proof"]))
            moved = k["window"]["io"]["bytes_read"] + k["window"]["io"]["bytes_written"]
            io = sum(j[d]["io_bytes"] for j in doc["jobs"] for d in ("read", "write"))
            if moved < io:
                bad("%s: the share's counters moved %d bytes, fio says %d" % (f, moved, io))
    print("%s: %s; %s" % (name, n["negotiated"][:120],
          ", ".join("%s %.0f IOPS" % (x["workload"], x["iops"]["mean"]) for x in cells)))
for f in glob.glob(os.path.join(out, "*")) + glob.glob(os.path.join(out, "cells", "*")):
    if os.path.isfile(f) and "password=nfsbench" in open(f, errors="replace").read():
        bad("%s holds the password" % f)
for name, rtt, zero, mean in check_distance(out):
    print("%s: mean latency %.1f ms with %.1f ms on the path, %.1f ms without" % (name, mean, rtt, zero))
