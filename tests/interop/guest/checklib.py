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
    """Round-trip sweep points (cells/*rtt_*.json): every one with a round trip has a mean completion
    latency of at least 90% of it, whatever the transport — the delay on the path holds for RDMA too.
    Returns the points checked as (file, rtt ms, mean latency ms)."""
    import glob
    import re
    checked = []
    for f in sorted(glob.glob(os.path.join(out, "cells", "*rtt_*.json"))):
        m = re.search(r"rtt_([0-9.]+)(us|µs|ms|s)", os.path.basename(f))
        if not m:
            bad("%s: no round trip in the name" % f)
        rtt_ms = float(m.group(1)) * {"us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]
        doc = json.load(open(f))
        n, total = 0, 0.0
        for j in doc["jobs"]:
            for d in ("read", "write"):
                ios = j[d]["total_ios"]
                n += ios
                total += j[d]["clat_ns"]["mean"] * ios
        if rtt_ms > 0:
            if n == 0:
                bad("%s: no I/O at a %.1f ms round trip" % (f, rtt_ms))
            mean_ms = total / n / 1e6
            if mean_ms < 0.9 * rtt_ms:
                bad("%s: mean latency %.2f ms under a %.1f ms round trip: the path was not delayed" % (f, mean_ms, rtt_ms))
            checked.append((os.path.basename(f), rtt_ms, mean_ms))
    return checked
