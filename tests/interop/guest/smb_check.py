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
import os
import sys

from checklib import bad, case_cells, check_reps, load_report, measured_cases, print_distance

out, expect = sys.argv[1], sys.argv[2].split()


def proven(transport):
    def check(f, k):
        smbdirect = "an SMBDirect section" in k["proof"]
        if smbdirect != (transport == "rdma"):
            bad("%s: the proof does not show %s: %r" % (f, transport, k["proof"]))
    return check


r, cases = load_report(out, expect)
for name, transport, rest, c in measured_cases(cases, expect):
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
    cells = case_cells(r, name)
    for x in cells:
        check_reps(out, x, "the share's counters", proven(transport))
    print("%s: %s; %s" % (name, n["negotiated"][:120],
          ", ".join("%s %.0f IOPS" % (x["workload"], x["iops"]["mean"]) for x in cells)))
for f in glob.glob(os.path.join(out, "*")) + glob.glob(os.path.join(out, "cells", "*")):
    if os.path.isfile(f) and "password=nfsbench" in open(f, errors="replace").read():
        bad("%s holds the password" % f)
print_distance(out)
