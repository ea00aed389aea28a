#!/usr/bin/env python3
"""tests/interop/lib/nfsbench_v4_check.py JSON KEY=VALUE... — check one `nfsbench run` of a multi-group
job (the study's jobs/transport-study.fio, run to completion: --time_based=0) over NFSv4.x, from its
JSON (--output-format=json, or normal,json), and print one line per group and a summary line.

Always fails (exit 1) on: no job; a job error; a verify error (nfsbench_verify_errors, which must be
present); a short or dropped I/O; an issued I/O that did not complete (total_ios x bs != io_bytes for
the group's fixed block size); a major timeout in the client's RPC layer.
Expectations:
  vers=4.1|4.2        the mount_options note names that version (what the client spoke)
  proto=tcp|rdma      the transport note starts with it
  connections=N       the connections note and as many connection.I notes
  bytes=N             every group moved exactly N bytes each way it moves data: read groups read N, write
                      groups write N and read N back (do_verify), so nothing was cut short
Prints, last, "total: R reads W writes, retrans=N reconnects=N calls=N" for the caller.
"""
import json
import sys

LETTER = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def size_of(text):
    t = text.strip().lower().rstrip("b").rstrip("i")
    mult = LETTER.get(t[-1:], 1)
    return int(t[:-1] if mult > 1 else t) * mult


def load(path):
    text = open(path).read()
    start = 0 if text.startswith("{") else text.index("\n{") + 1
    return json.JSONDecoder().raw_decode(text, start)[0]


def main(path, expect):
    doc = load(path)
    notes = doc.get("nfsbench", {}).get("notes", {})
    glob = doc.get("global options", {})
    jobs = doc.get("jobs") or []
    bad = [] if jobs else ["no jobs in the JSON"]
    reads = writes = 0
    for job in jobs:
        name = job.get("jobname", "?")
        opts = {**glob, **job.get("job options", {})}
        rw = opts.get("rw", "read")
        bs = size_of(opts["bs"]) if "bs" in opts and not any(c in opts["bs"] for c in ",-:/") else 0
        if job.get("error") != 0:
            bad.append("%s: error %s" % (name, job.get("error")))
        if "nfsbench_verify_errors" not in job:
            bad.append("%s: no nfsbench_verify_errors key" % name)
        elif job["nfsbench_verify_errors"]:
            bad.append("%s: %d verify errors" % (name, job["nfsbench_verify_errors"]))
        parts = []
        for d in ("read", "write"):
            s = job[d]
            if s["short_ios"] or s["drop_ios"]:
                bad.append("%s %s: short %d dropped %d" % (name, d, s["short_ios"], s["drop_ios"]))
            if bs and s["io_bytes"] != s["total_ios"] * bs:
                bad.append("%s %s: %d issued, %d bytes completed in %d-byte I/Os"
                           % (name, d, s["total_ios"], s["io_bytes"], bs))
            if s["total_ios"]:
                parts.append("%s %.1f MiB/s %.0f IOPS (%d I/Os)"
                             % (d, s["bw_bytes"] / 2**20, s["iops"], s["total_ios"]))
        reads += job["read"]["total_ios"]
        writes += job["write"]["total_ios"]
        if "bytes" in expect:
            want = int(expect["bytes"])
            wrote = "write" in rw   # write, randwrite: written, then read back by the verify phase
            if job["read"]["io_bytes"] != want:
                bad.append("%s: read %d bytes, want %d" % (name, job["read"]["io_bytes"], want))
            if job["write"]["io_bytes"] != (want if wrote else 0):
                bad.append("%s: wrote %d bytes, want %d" % (name, job["write"]["io_bytes"], want if wrote else 0))
        print("  %s (%s, bs %s): %s; error %s, verify errors %s" % (
            name, rw, opts.get("bs", "?"), ", ".join(parts) or "no I/O", job.get("error"),
            job.get("nfsbench_verify_errors")))
    mount = notes.get("mount_options", "")
    if "vers" in expect and "vers=%s," % expect["vers"] not in mount + ",":
        bad.append("mount_options %r do not say vers=%s" % (mount, expect["vers"]))
    transport = notes.get("transport", "")
    if "proto" in expect and not transport.startswith(expect["proto"]):
        bad.append("transport %r, want %s" % (transport, expect["proto"]))
    if "connections" in expect:
        n = int(expect["connections"])
        listed = sum(1 for k in notes if k.startswith("connection."))
        if notes.get("connections") != str(n) or listed != n:
            bad.append("connections note %s with %d listed, want %d" % (notes.get("connections"), listed, n))
    if int(notes.get("rpc_major_timeouts", 0)):
        bad.append("%s major timeouts" % notes["rpc_major_timeouts"])
    print("total: %d reads %d writes, transport %s, retrans=%s reconnects=%s calls=%s" % (
        reads, writes, transport or "?", notes.get("rpc_retransmissions", "?"), notes.get("rpc_reconnects", "?"),
        notes.get("rpc_calls", "?")))
    if bad:
        print("BAD: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[2:]):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])))
