#!/usr/bin/env python3
"""tests/interop/lib/nfsbench_json.py — checks of `nfsbench run --output-format=json|json+` results.

  nfsbench_json.py clean JSON
      Every job: error 0, nfsbench_verify_errors 0 (the key must be there), no short or dropped I/O,
      at least one I/O, io_bytes = total_ios x bs for a fixed block size. Prints one line per job.
  nfsbench_json.py schema JSON JOB:RW:BS[,JOB:RW:BS...] IODEPTH NUMJOBS RUNTIME_S
      The keys fio's JSON parsers read (fio-plot's jsonimport/jsonparsing, fio_jsonplus_clat2csv), with
      fio 3.33's types, and that the numbers agree with each other and with the job file: one reported
      job per group (group_reporting), in order, named JOB, with rw/bs/iodepth/numjobs/runtime in its
      merged options; read-only jobs moved data only in "read"; json+ bins that sum to N.
  nfsbench_json.py connections JSON
      The "nfsbench" notes' connection list, one "LOCAL REMOTE" line each (exit 1 when the count note
      and the list disagree or are missing).

Exit status 0 when everything holds; 1 with a "BAD: ..." line per problem otherwise; 2 for bad usage.
"""
import json
import sys

DIRS = ("read", "write", "trim")
LAT_KEYS = ("min", "max", "mean", "stddev", "N")
NUM = (int, float)


def load(path):
    with open(path) as f:
        return json.load(f)


def size_of(text):
    """fio's size strings as the job file writes them: 4k, 1M, 1m, 4096 (base 1024)."""
    t = text.strip().lower().rstrip("b").rstrip("i")
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(t[-1:], 1)
    return int(t[:-1] if mult > 1 else t) * mult


def merged_options(doc, job):
    """What fio-plot does: the job's options with the global ones on top."""
    return {**job.get("job options", {}), **doc.get("global options", {})}


def fixed_bs(opts):
    bs = opts.get("bs")
    if bs is None or any(c in bs for c in ",-:/"):
        return None
    return size_of(bs)


def cmd_clean(path):
    doc = load(path)
    bad = []
    jobs = doc.get("jobs") or []
    if not jobs:
        bad.append("no jobs in the JSON")
    for job in jobs:
        name = job.get("jobname", "?")
        if job.get("error") != 0:
            bad.append("%s: error %s" % (name, job.get("error")))
        if "nfsbench_verify_errors" not in job:
            bad.append("%s: no nfsbench_verify_errors key" % name)
        elif job["nfsbench_verify_errors"] != 0:
            bad.append("%s: nfsbench_verify_errors %s" % (name, job["nfsbench_verify_errors"]))
        bs = fixed_bs(merged_options(doc, job))
        parts = []
        ios = 0
        for d in ("read", "write"):
            s = job[d]
            ios += s["total_ios"]
            if s["short_ios"] or s["drop_ios"]:
                bad.append("%s %s: short %d dropped %d" % (name, d, s["short_ios"], s["drop_ios"]))
            if bs and s["io_bytes"] != s["total_ios"] * bs:
                bad.append("%s %s: %d bytes in %d I/Os of %d" % (name, d, s["io_bytes"], s["total_ios"], bs))
            if s["total_ios"]:
                parts.append("%s %d MiB in %d I/Os %.0f MiB/s %.0f IOPS" % (
                    d, s["io_bytes"] >> 20, s["total_ios"], s["bw_bytes"] / 2**20, s["iops"]))
        if ios == 0:
            bad.append("%s: no I/O at all" % name)
        print("%s: %s; error %s, verify errors %s" % (
            name, ", ".join(parts) or "no I/O", job.get("error"), job.get("nfsbench_verify_errors")))
    return report(bad)


def check_lat(where, lat, bad, percentiles=False, plus=False):
    if not isinstance(lat, dict):
        bad.append("%s: not an object" % where)
        return
    for k in LAT_KEYS:
        if not isinstance(lat.get(k), NUM):
            bad.append("%s.%s: missing or not a number" % (where, k))
    if not lat.get("N"):
        return
    if not lat["min"] <= lat["mean"] <= lat["max"]:
        bad.append("%s: min %s mean %s max %s out of order" % (where, lat["min"], lat["mean"], lat["max"]))
    if percentiles:
        p = lat.get("percentile")
        if not isinstance(p, dict) or "99.000000" not in p or "50.000000" not in p:
            bad.append("%s.percentile: missing, or without fio's '50.000000'/'99.000000' keys" % where)
        else:
            vals = [p[k] for k in sorted(p, key=float)]
            if vals != sorted(vals):
                bad.append("%s.percentile: not monotonic" % where)
    if plus:
        bins = lat.get("bins")
        if not isinstance(bins, dict) or not bins:
            bad.append("%s.bins: missing (json+)" % where)
        elif sum(bins.values()) != lat["N"]:
            bad.append("%s.bins: counts sum to %d, N is %d" % (where, sum(bins.values()), lat["N"]))
        elif not all(k.isdigit() for k in bins):
            bad.append("%s.bins: keys are not integer nanoseconds" % where)


def cmd_schema(path, jobs_spec, iodepth, numjobs, runtime_s):
    doc = load(path)
    bad = []
    want = [tuple(j.split(":")) for j in jobs_spec.split(",")]
    for k, t in (("fio version", str), ("timestamp", int), ("timestamp_ms", int), ("time", str),
                 ("jobs", list), ("global options", dict)):
        if not isinstance(doc.get(k), t):
            bad.append("top level: '%s' missing or not a %s" % (k, t.__name__))
    if bad:
        return report(bad)
    jobs = doc["jobs"]
    if [j.get("jobname") for j in jobs] != [w[0] for w in want]:
        bad.append("jobs are %s, want %s (one per group with group_reporting)"
                   % ([j.get("jobname") for j in jobs], [w[0] for w in want]))
        return report(bad)
    for gid, (job, (name, rw, bs)) in enumerate(zip(jobs, want)):
        w = name
        for k, t in (("groupid", int), ("error", int), ("job options", dict), ("usr_cpu", NUM), ("sys_cpu", NUM),
                     ("ctx", int), ("majf", int), ("minf", int), ("job_runtime", int), ("elapsed", int),
                     ("iodepth_level", dict), ("latency_ns", dict), ("latency_us", dict), ("latency_ms", dict)):
            if not isinstance(job.get(k), t):
                bad.append("%s: '%s' missing or of the wrong type" % (w, k))
        if job.get("groupid") != gid:
            bad.append("%s: groupid %s, want %d (stonewall starts a group)" % (w, job.get("groupid"), gid))
        opts = merged_options(doc, job)
        for k, v in (("rw", rw), ("bs", bs), ("iodepth", str(iodepth)), ("numjobs", str(numjobs)),
                     ("runtime", str(runtime_s))):
            if opts.get(k) != v:
                bad.append("%s: option %s=%r in the JSON (job options + global options), want %r"
                           % (w, k, opts.get(k), v))
        for k in ("time_based", "group_reporting"):
            if k not in opts:
                bad.append("%s: option %s missing from the JSON's options" % (w, k))
        if set(job.get("latency_us", {})) != {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"}:
            bad.append("%s: latency_us keys are not fio's" % w)
        if ">=2000" not in job.get("latency_ms", {}):
            bad.append("%s: latency_ms has no '>=2000' key" % w)
        if ">=64" not in job.get("iodepth_level", {}):
            bad.append("%s: iodepth_level has no '>=64' key" % w)
        elif iodepth >= 64 and not job["iodepth_level"][">=64"] > 0:
            bad.append("%s: iodepth_level shows no submission at depth >=64 (iodepth=%s)" % (w, iodepth))
        for d in DIRS:
            s = job.get(d)
            if not isinstance(s, dict):
                bad.append("%s.%s: missing" % (w, d))
                continue
            for k in ("io_bytes", "io_kbytes", "bw_bytes", "bw", "runtime", "total_ios", "short_ios", "drop_ios",
                      "bw_min", "bw_max", "bw_samples", "iops_min", "iops_max", "iops_samples"):
                if not isinstance(s.get(k), int):
                    bad.append("%s.%s.%s: missing or not an integer" % (w, d, k))
            for k in ("iops", "bw_agg", "bw_mean", "bw_dev", "iops_mean", "iops_stddev"):
                if not isinstance(s.get(k), NUM):
                    bad.append("%s.%s.%s: missing or not a number" % (w, d, k))
            for k in ("slat_ns", "clat_ns", "lat_ns"):
                check_lat("%s.%s.%s" % (w, d, k), s.get(k), bad, percentiles=(k == "clat_ns"), plus=(k == "clat_ns"))
        if any(bad_ for bad_ in bad if bad_.startswith(w + ".")):
            continue
        r = job["read"]
        if job["write"]["total_ios"] or job["trim"]["total_ios"]:
            bad.append("%s: a read-only job wrote or trimmed (%d, %d I/Os)" % (w, job["write"]["total_ios"], job["trim"]["total_ios"]))
        if r["total_ios"] <= 0 or r["iops"] <= 0 or r["bw"] <= 0 or r["lat_ns"]["mean"] <= 0:
            bad.append("%s.read: iops %s bw %s lat_ns.mean %s (all must be > 0)" % (w, r["iops"], r["bw"], r["lat_ns"]["mean"]))
            continue
        if r["io_bytes"] != r["total_ios"] * size_of(bs):
            bad.append("%s.read: %d bytes in %d I/Os of %s" % (w, r["io_bytes"], r["total_ios"], bs))
        if r["io_kbytes"] != r["io_bytes"] >> 10 or r["bw"] != r["bw_bytes"] // 1024:
            bad.append("%s.read: io_kbytes/bw are not io_bytes/bw_bytes in KiB" % w)
        if r["bw_bytes"] != r["io_bytes"] * 1000 // r["runtime"]:
            bad.append("%s.read: bw_bytes %d != io_bytes*1000/runtime %d" % (w, r["bw_bytes"], r["io_bytes"] * 1000 // r["runtime"]))
        if abs(r["iops"] - 1000.0 * r["total_ios"] / r["runtime"]) > 0.01 * r["iops"]:
            bad.append("%s.read: iops %.1f != total_ios/runtime %.1f" % (w, r["iops"], 1000.0 * r["total_ios"] / r["runtime"]))
        # time_based with the command line's runtime: each group ran about RUNTIME_S, not the file's 60 s
        if not runtime_s * 1000 - 10 <= r["runtime"] <= runtime_s * 1000 + 3000:
            bad.append("%s.read: runtime %d ms, want %d s (time_based, runtime from the command line)"
                       % (w, r["runtime"], runtime_s))
        # group_reporting: job_runtime sums the clones' runtimes (numjobs x runtime)
        if not numjobs * (runtime_s * 1000 - 10) <= job["job_runtime"] <= numjobs * (runtime_s * 1000 + 3000):
            bad.append("%s: job_runtime %d ms, want about numjobs x runtime = %d ms"
                       % (w, job["job_runtime"], numjobs * runtime_s * 1000))
        if r["clat_ns"]["N"] != r["total_ios"] or r["lat_ns"]["N"] != r["total_ios"]:
            bad.append("%s.read: clat N %d, lat N %d, total_ios %d" % (w, r["clat_ns"]["N"], r["lat_ns"]["N"], r["total_ios"]))
        print("%s (group %d, %s bs=%s iodepth=%s numjobs=%s): read IOPS=%.0f BW=%.1f MiB/s lat mean=%.0f us "
              "p99(clat)=%.0f us, %d I/Os in %d ms, %d json+ bins"
              % (w, job["groupid"], rw, bs, iodepth, numjobs, r["iops"], r["bw_bytes"] / 2**20, r["lat_ns"]["mean"] / 1e3,
                 r["clat_ns"]["percentile"]["99.000000"] / 1e3, r["total_ios"], r["runtime"], len(r["clat_ns"]["bins"])))
    return report(bad)


def cmd_connections(path):
    notes = load(path).get("nfsbench", {}).get("notes", {})
    bad = []
    count = notes.get("connections")
    conns = []
    i = 0
    while "connection.%d" % i in notes:
        local, arrow, remote = notes["connection.%d" % i].partition(" -> ")
        if not arrow:
            bad.append("connection.%d: %r is not 'LOCAL -> REMOTE'" % (i, notes["connection.%d" % i]))
        conns.append((local, remote))
        i += 1
    if count is None:
        bad.append("no 'connections' note in the JSON's nfsbench.notes")
    elif str(count) != str(len(conns)):
        bad.append("the 'connections' note says %s, %d connection.N notes follow" % (count, len(conns)))
    for local, remote in conns:
        print(local, remote)
    return report(bad)


def report(bad):
    for b in bad:
        print("BAD: " + b)
    return 1 if bad else 0


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "clean":
            return cmd_clean(argv[2])
        if len(argv) == 7 and argv[1] == "schema":
            return cmd_schema(argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]))
        if len(argv) == 3 and argv[1] == "connections":
            return cmd_connections(argv[2])
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("BAD: cannot read %s: %s: %s" % (argv[2], type(e).__name__, e))
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
