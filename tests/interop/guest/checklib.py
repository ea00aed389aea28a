"""What the report checkers of the kernel-engine scenarios share: failing with a reason, and reading a
`compare` report whose cases must be exactly those expected."""
import json
import os
import sys


def bad(msg):
    print("BAD:", msg)
    sys.exit(1)


def load_report(out, expect):
    """report.json of OUT and its cases by name; fails unless the cases are those of EXPECT (a list of
    NAME:... entries)."""
    r = json.load(open(os.path.join(out, "report.json")))
    cases = {c["name"]: c for c in r["cases"]}
    names = [e.split(":")[0] for e in expect]
    if sorted(cases) != sorted(names):
        bad("cases %s, expected %s" % (sorted(cases), sorted(names)))
    return r, cases


def check_failed(name, case, text):
    """A case expected to fail: its reason holds TEXT."""
    if not case.get("failed") or text not in case["failed"]:
        bad("%s: expected a failure with %r, got %r" % (name, text, case.get("failed")))
    print("%s: failed as expected: %s" % (name, case["failed"][-200:]))


def check_distance(out):
    """Round-trip sweep points (cells/CASE--WORKLOAD_rtt_X--REP.json): for every case, the mean completion
    latency at its longest round trip exceeds the one at no round trip by at least 90% of that round
    trip, whatever the transport: the delay on the path holds for RDMA too. (The shorter points are not
    judged: under emulation the latency at no round trip alone varies by more than they add.) Returns
    (case, rtt ms, mean ms at 0, mean ms at rtt) per case."""
    import glob
    import re
    points = {}
    for f in sorted(glob.glob(os.path.join(out, "cells", "*rtt_*.json"))):
        m = re.search(r"^(.*?)--.*rtt_([0-9.]+)(us|µs|ms|s)--", os.path.basename(f))
        if not m:
            bad("%s: no case and round trip in the name" % f)
        rtt_ms = float(m.group(2)) * {"us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}[m.group(3)]
        doc = json.load(open(f))
        n, total = 0, 0.0
        for j in doc["jobs"]:
            for d in ("read", "write"):
                ios = j[d]["total_ios"]
                n += ios
                total += j[d]["clat_ns"]["mean"] * ios
        if n == 0:
            bad("%s: no I/O" % f)
        points.setdefault(m.group(1), []).append((rtt_ms, total / n / 1e6))
    checked = []
    for case, pts in sorted(points.items()):
        pts.sort()
        zero = [mean for rtt, mean in pts if rtt == 0]
        if not zero or pts[-1][0] == 0:
            bad("%s: the sweep needs a point at no round trip and one beyond" % case)
        rtt, mean = pts[-1]
        if mean < zero[0] + 0.9 * rtt:
            bad("%s: mean latency %.1f ms at a %.1f ms round trip, %.1f ms at none: the path was not delayed"
                % (case, mean, rtt, zero[0]))
        checked.append((case, rtt, zero[0], mean))
    return checked
