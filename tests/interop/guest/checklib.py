"""What the report checkers of the kernel-engine scenarios share: failing with a reason, reading a
`compare` report whose cases must be exactly those expected, walking its measured cases, their cells and
repetitions, and judging the distance sweep."""
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


def measured_cases(cases, expect):
    """The entries NAME:KIND:REST of EXPECT in turn: a NAME:failed:TEXT case is checked here
    (check_failed); a measured case must not have failed, and is yielded as (name, kind, rest, case)."""
    for e in expect:
        name, kind, rest = (e.split(":", 2) + [""])[:3]
        c = cases[name]
        if kind == "failed":
            check_failed(name, c, rest)
            continue
        if c.get("failed"):
            bad("%s: failed: %s" % (name, c["failed"]))
        yield name, kind, rest, c


def case_cells(r, name):
    """The cells of case NAME in report R; it must have one for every workload (sweep points, such as
    "seq-read-1m@rtt=22.53ms", are cells of their own beside the workloads')."""
    cells = [x for x in r["cells"] if x["case"] == name]
    base = [x for x in cells if "@" not in x["workload"]]
    if len(base) != len(r["workloads"]):
        bad("%s: %d cells for %d workloads" % (name, len(base), len(r["workloads"])))
    return cells


def check_reps(out, cell, what, proven):
    """Every repetition's own JSON of CELL: PROVEN(file, its nfsbench.kernel) judges the transport, and
    the kernel's window (WHAT: the device, the share's counters) moved at least the bytes fio reports."""
    for f in cell["files"]:
        doc = json.load(open(os.path.join(out, f)))
        k = doc["nfsbench"]["kernel"]
        proven(f, k)
        moved = k["window"]["io"]["bytes_read"] + k["window"]["io"]["bytes_written"]
        io = sum(j[d]["io_bytes"] for j in doc["jobs"] for d in ("read", "write"))
        if moved < io:
            bad("%s: %s moved %d bytes, fio says %d" % (f, what, moved, io))


def print_distance(out):
    """check_distance, one line per case."""
    for name, rtt, zero, mean in check_distance(out):
        print("%s: mean latency %.1f ms with %.1f ms on the path, %.1f ms without" % (name, mean, rtt, zero))


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
