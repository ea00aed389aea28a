#!/usr/bin/env python3
"""block_check.py OUT TARGET_BYTES EXPECT — checks a `compare` report of block cases.

EXPECT is a blank-separated list of
    NAME:KIND            a measured case of that kind (nvme-tcp, nvme-rdma, iscsi, iser): the transport
                         proven from the kernel's own state in every cell (sysfs: the controller's
                         transport, the SCSI host's driver), a device and its counters in every cell,
                         the initiator's device moving at least the bytes fio reports
    NAME:failed:TEXT     a case that failed, its reason containing TEXT
TARGET_BYTES: what the target's backing devices moved during the plan (/sys/block/*/stat; -1: not
known); it must be at least the bytes the report says were measured. Prints one line per case; exits 1
naming the first problem.
"""
import glob
import json
import os
import sys

from checklib import bad, case_cells, check_reps, load_report, measured_cases, print_distance

out, target_bytes, expect = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
# What sysfs shows for each kind: the controller's transport file, or the iSCSI SCSI host's proc_name.
PROOF = {"nvme-tcp": "= tcp", "nvme-rdma": "= rdma", "iscsi": "iscsi_tcp", "iser": "iser"}


def proven(kind):
    def check(f, k):
        if PROOF[kind] not in k["proof"]:
            bad("%s: the kernel's state does not prove %s: %r" % (f, kind, k["proof"]))
    return check


r, cases = load_report(out, expect)
for name, kind, rest, c in measured_cases(cases, expect):
    if c.get("kind") != kind or c.get("engine") != "kernel":
        bad("%s: kind %r engine %r, expected %s on the kernel engine" % (name, c.get("kind"), c.get("engine"), kind))
    n = c.get("negotiation")
    if not n or not n["negotiated"]:
        bad("%s: no negotiation in the report" % name)
    cells = case_cells(r, name)
    for x in cells:
        d = (x.get("kernel") or {}).get("io")
        if not d or x["bandwidth_mbs"]["mean"] <= 0:
            bad("%s/%s: no device counters or no bandwidth: %s" % (name, x["workload"], x.get("kernel")))
        # Every repetition's own JSON: the proof, and the device moving what fio says it moved.
        check_reps(out, x, "the device", proven(kind))
    print("%s: %s; %s; %s" % (name, n["negotiated"], cells[0]["kernel"]["io"],
          ", ".join("%s %.0f MB/s" % (x["workload"], x["bandwidth_mbs"]["mean"]) for x in cells)))
for f in ("report.html", "results.md", "results.csv", "reps.csv"):
    if not os.path.getsize(os.path.join(out, f)):
        bad("empty " + f)
if "asked vs negotiated" not in open(os.path.join(out, "results.md")).read():
    bad("results.md has no asked-vs-negotiated table")
measured = 0
for f in glob.glob(os.path.join(out, "cells", "*.json")):
    doc = json.load(open(f))
    measured += sum(j[d]["io_bytes"] for j in doc.get("jobs", []) for d in ("read", "write"))
if target_bytes >= 0:
    if target_bytes < measured:
        bad("the target's devices moved %d bytes, the report says %d were measured" % (target_bytes, measured))
    print("measured %d bytes; the target's devices moved %d (layout included)" % (measured, target_bytes))
print_distance(out)
