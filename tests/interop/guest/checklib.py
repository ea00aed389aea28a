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
