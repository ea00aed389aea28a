#!/usr/bin/env python3
"""tests/interop/lib/nfsbench_run_check.py JSON [KEY=VALUE...] — check one `nfsbench run` job's JSON
(--output-format=json, fio 3.33's layout plus nfsbench's own fields) and print a summary line.

Always fails (exit 1) on: a job error, a verify error (nfsbench_verify_errors), a short or dropped I/O,
an issued I/O that did not complete (total_ios != io_bytes / bs, when bs= is given).
Expectations (all optional; a value is N, exactly, or N-M, a range):
  bs=N              the block size (for the completion check above)
  read_bytes=N      read io_bytes            write_bytes=N   write io_bytes
  read_ios=N        read total_ios           write_ios=N     write total_ios
  syncs=N           fsync/COMMIT count (the "sync" section's total_ios)
  connections=N     the transport connections the client reports in its notes
  registrations=N   RPC-over-RDMA memory registrations the client made (its notes' rdma_registrations:
                    one pool per queue pair, then none per I/O)
  min_read_ios=N    at least N reads (time_based runs)
"""
import json
import sys


def main(path, expect):
    text = open(path).read()
    start = 0 if text.startswith("{") else text.index("\n{") + 1
    doc = json.JSONDecoder().raw_decode(text, start)[0]
    job = doc["jobs"][0]
    notes = doc.get("nfsbench", {}).get("notes", {})
    bad = []
    if job["error"]:
        bad.append("job error %d" % job["error"])
    if job.get("nfsbench_verify_errors", 0):
        bad.append("%d verify errors" % job["nfsbench_verify_errors"])
    bs = int(expect.pop("bs", 0))
    got = {"read_bytes": job["read"]["io_bytes"], "write_bytes": job["write"]["io_bytes"],
           "read_ios": job["read"]["total_ios"], "write_ios": job["write"]["total_ios"],
           "syncs": job.get("sync", {}).get("total_ios", 0),
           "connections": int(notes.get("connections", 0)),
           "registrations": int(notes.get("rdma_registrations", 0))}
    for d in ("read", "write"):
        s = job[d]
        if bs and s["total_ios"] != s["io_bytes"] // bs:
            bad.append("%s: %d issued, %d completed" % (d, s["total_ios"], s["io_bytes"] // bs))
        if s["short_ios"] or s["drop_ios"]:
            bad.append("%s: short %d dropped %d" % (d, s["short_ios"], s["drop_ios"]))
    for key, want in expect.items():
        if key == "min_read_ios":
            if got["read_ios"] < int(want):
                bad.append("read_ios %d < %s" % (got["read_ios"], want))
            continue
        low, _, high = want.partition("-")
        if key not in got:
            bad.append("unknown expectation %s" % key)
        elif not int(low) <= got[key] <= int(high or low):
            bad.append("%s %d, expected %s" % (key, got[key], want))
    parts = []
    for d in ("read", "write"):
        s = job[d]
        if s["total_ios"]:
            parts.append("%s %.1f MiB/s IOPS=%.0f ios=%d lat mean=%.0f us"
                         % (d, s["bw_bytes"] / 2**20, s["iops"], s["total_ios"], s["lat_ns"]["mean"] / 1e3))
    if got["syncs"]:
        parts.append("syncs=%d" % got["syncs"])
    parts.append("connections=%d runtime=%d ms" % (got["connections"], job["job_runtime"]))
    if "rdma_registrations" in notes:
        parts.append("registrations=%d (%s per call)" % (got["registrations"], notes.get("rdma_registrations_per_call")))
    # The client's retransmissions over the run: a server counts a retransmitted call again.
    parts.append("retrans=%d" % int(notes.get("rpc_retransmissions", 0)))
    print("%s: %s" % (job["jobname"], ", ".join(parts)))
    if bad:
        print("BAD: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[2:]):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])))
