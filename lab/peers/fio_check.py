#!/usr/bin/env python3
"""lab/peers/fio_check.py FIO_JSON BS — check one fio job's JSON output; print a summary line.

Fails (exit 1) when fio reports an error, when an issued I/O did not complete (total_ios differs from
io_bytes / BS: what fio's nfs engine loses when it tears down with calls in flight), or on short or
dropped I/Os. The JSON may follow other output (fio's --output-format=normal,json).
"""
import json
import sys


def main(path, bs):
    text = open(path).read()
    start = 0 if text.startswith("{") else text.index("\n{") + 1
    j = json.JSONDecoder().raw_decode(text, start)[0]
    job = j["jobs"][0]
    bad = []
    if job["error"]:
        bad.append("fio error %d" % job["error"])
    for d in ("read", "write"):
        s = job[d]
        if s["total_ios"] and s["total_ios"] != s["io_bytes"] // bs:
            bad.append("%s: %d issued, %d completed" % (d, s["total_ios"], s["io_bytes"] // bs))
        if s["short_ios"] or s["drop_ios"]:
            bad.append("%s: short %d dropped %d" % (d, s["short_ios"], s["drop_ios"]))
        if s["total_ios"]:
            p99 = s["clat_ns"].get("percentile", {}).get("99.000000", 0)
            print("%s: %s IOPS=%.0f BW=%.1f MiB/s (%.0f MB/s) lat mean=%.0f us p99(clat)=%.0f us ios=%d runtime=%d ms"
                  % (job["jobname"], d, s["iops"], s["bw_bytes"] / 2**20, s["bw_bytes"] / 1e6,
                     s["lat_ns"]["mean"] / 1e3, p99 / 1e3, s["total_ios"], s["runtime"]))
    print("%s: cpu usr=%.1f%% sys=%.1f%% ctx=%d" % (job["jobname"], job["usr_cpu"], job["sys_cpu"], job["ctx"]))
    if bad:
        print("BAD: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
