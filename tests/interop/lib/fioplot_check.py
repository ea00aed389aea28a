#!/usr/bin/env python3
"""tests/interop/lib/fioplot_check.py JSON OUTDIR — read an nfsbench JSON result with fio-plot's own parser.

Run with the python of lab/peers/fio-plot.sh's venv. fio-plot expects one workload per JSON file (its
bench-fio writes one file per rw/iodepth/numjobs), so each reported job (one per group with
group_reporting) is written to OUTDIR/JOBNAME.json as the whole document with only that job in "jobs".
Then, per job, fio-plot's pipeline as its charts use it: jsonimport.list_json_files (which must pick
exactly that job's file by rw/iodepth/numjobs), import_json_dataset, jsonparsing.parse_json_data; the
row it makes must carry the job's rw, bs, iodepth, numjobs, IOPS, bandwidth and mean latency.
Prints one line per job, then the rw of each job on a last line "RW: rw1 rw2 ..." for the caller
(which then draws fio-plot's chart from OUTDIR). Exit 1 with "BAD: ..." lines when anything differs.
"""
import json
import os
import sys

from fio_plot.fiolib import jsonimport, jsonparsing


def main(path, outdir):
    with open(path) as f:
        doc = json.load(f)
    os.makedirs(outdir, exist_ok=True)
    bad = []
    rws = []
    for job in doc["jobs"]:
        one = dict(doc)
        one["jobs"] = [json.loads(json.dumps(job))]
        with open(os.path.join(outdir, job["jobname"] + ".json"), "w") as f:
            json.dump(one, f, indent=2)
    for job in doc["jobs"]:
        opts = {**job["job options"], **doc.get("global options", {})}
        rw, iodepth, numjobs = opts["rw"], int(opts["iodepth"]), int(opts["numjobs"])
        rws.append(rw)
        settings = {
            "input_directory": [outdir], "rw": rw, "iodepth": [iodepth], "numjobs": [numjobs],
            "filter": ["read", "write"], "include_hosts": None, "exclude_hosts": None, "compare_graph": False,
        }
        dataset = jsonimport.list_json_files(settings)
        files = [os.path.basename(f) for f in dataset[0]["files"]]
        if files != [job["jobname"] + ".json"]:
            bad.append("%s: fio-plot selected %s for rw=%s iodepth=%d numjobs=%d" % (job["jobname"], files, rw, iodepth, numjobs))
            continue
        dataset = jsonimport.import_json_dataset(settings, dataset)
        parsed = jsonparsing.parse_json_data(settings, dataset)
        rows = parsed[0]["data"]
        if len(rows) != 1:
            bad.append("%s: fio-plot made %d rows" % (job["jobname"], len(rows)))
            continue
        row = rows[0]
        mode = "write" if rw in ("write", "randwrite") else "read"
        want = {
            "type": mode, "rw": rw, "bs": opts["bs"], "iodepth": opts["iodepth"], "numjobs": opts["numjobs"],
            "iops": job[mode]["iops"], "bw": job[mode]["bw"], "lat": job[mode]["lat_ns"]["mean"],
            "fio_version": doc["fio version"],
        }
        for k, v in want.items():
            if row.get(k) != v:
                bad.append("%s: fio-plot's row has %s=%r, the JSON %r" % (job["jobname"], k, row.get(k), v))
        if row.get("iops", 0) <= 0 or row.get("bw", 0) <= 0 or row.get("lat", 0) <= 0:
            bad.append("%s: fio-plot read iops %s bw %s lat %s" % (job["jobname"], row.get("iops"), row.get("bw"), row.get("lat")))
        print("fio-plot %s: rw=%s bs=%s iodepth=%s numjobs=%s iops=%.0f bw=%s KiB/s lat=%.0f ns cpu usr=%.1f%% sys=%.1f%%"
              % (job["jobname"], row.get("rw"), row.get("bs"), row.get("iodepth"), row.get("numjobs"), row.get("iops", 0),
                 row.get("bw"), row.get("lat", 0), row.get("cpu_usr", 0), row.get("cpu_sys", 0)))
    for b in bad:
        print("BAD: " + b)
    print("RW: " + " ".join(rws))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
