#!/usr/bin/env python3
"""tests/interop/lib/fioplot_clients_check.py JSON OUTDIR — fio-plot's parser over nfsbench's client-mode JSON.

Run with the python of lab/peers/fio-plot.sh's venv, on the JSON rank 0 of `mpirun -np N nfsbench run`
wrote for one job: "client_stats" with each client's job object (hostname, nfsbench_rank) and one
"All clients" object. fio-plot reads fio's `--client` output from "client_stats" and makes one row per
host, summing the IOPS and bandwidth of the objects with that hostname; "All clients" is a host of its own.
Checks, through jsonimport.list_json_files, import_json_dataset and jsonparsing.parse_json_data:
  - the "All clients" row carries exactly the JSON's merged IOPS, bandwidth and mean latency;
  - every host's row is the sum of that host's clients' IOPS and bandwidth;
  - the merged IOPS is the sum of the clients' I/Os over the longest client's run time.
Prints one line per row; exit 1 with "BAD: ..." lines when anything differs.
"""
import json
import math
import os
import sys

from fio_plot.fiolib import jsonimport, jsonparsing


def main(path, outdir):
    with open(path) as f:
        doc = json.load(f)
    bad = []
    stats = doc.get("client_stats")
    if not stats:
        print("BAD: no client_stats in %s" % path)
        return 1
    clients = [j for j in stats if j["jobname"] != "All clients"]
    merged = [j for j in stats if j["jobname"] == "All clients"]
    if len(merged) != 1 or not clients:
        print("BAD: %d client objects and %d \"All clients\" objects (want N and 1)" % (len(clients), len(merged)))
        return 1
    merged = merged[0]
    os.makedirs(outdir, exist_ok=True)
    name = clients[0]["jobname"]
    with open(os.path.join(outdir, name + ".json"), "w") as f:
        json.dump(doc, f, indent=2)
    opts = {**clients[0]["job options"], **doc.get("global options", {})}
    rw, iodepth, numjobs = opts["rw"], int(opts["iodepth"]), int(opts["numjobs"])
    mode = "write" if rw in ("write", "randwrite") else "read"
    settings = {
        "input_directory": [outdir], "rw": rw, "iodepth": [iodepth], "numjobs": [numjobs],
        "filter": ["read", "write"], "include_hosts": None, "exclude_hosts": None, "compare_graph": False,
    }
    dataset = jsonimport.list_json_files(settings)
    files = [os.path.basename(f) for f in dataset[0]["files"]]
    if files != [name + ".json"]:
        print("BAD: fio-plot selected %s for rw=%s iodepth=%d numjobs=%d" % (files, rw, iodepth, numjobs))
        return 1
    dataset = jsonimport.import_json_dataset(settings, dataset)
    rows = {r["hostname"]: r for r in jsonparsing.parse_json_data(settings, dataset)[0]["data"]}
    hosts = sorted({c["hostname"] for c in clients})
    if sorted(rows) != sorted(hosts + ["All clients"]):
        bad.append("fio-plot made rows for %s, the clients ran on %s" % (sorted(rows), hosts))
    row = rows.get("All clients", {})
    for key, want in (("iops", merged[mode]["iops"]), ("bw", merged[mode]["bw"]), ("lat", merged[mode]["lat_ns"]["mean"])):
        if row.get(key) != want:
            bad.append("All clients: fio-plot's %s is %r, the JSON's %r" % (key, row.get(key), want))
    for host in hosts:
        mine = [c for c in clients if c["hostname"] == host]
        for key in ("iops", "bw"):
            want = sum(c[mode][key] for c in mine)
            got = rows.get(host, {}).get(key)
            if got is None or not math.isclose(got, want, rel_tol=1e-9):
                bad.append("%s: fio-plot's %s is %r, its clients sum to %r" % (host, key, got, want))
    ios = sum(c[mode]["total_ios"] for c in clients)
    longest = max(c[mode]["runtime"] for c in clients)
    if merged[mode]["total_ios"] != ios:
        bad.append("All clients: total_ios %d, the clients' sum %d" % (merged[mode]["total_ios"], ios))
    if longest <= 0 or not math.isclose(merged[mode]["iops"], ios * 1000.0 / longest, rel_tol=1e-6):
        bad.append("All clients: iops %r, the clients' I/Os over the longest run time (%d ms) are %r"
                   % (merged[mode]["iops"], longest, ios * 1000.0 / max(longest, 1)))
    for host, r in sorted(rows.items()):
        print("fio-plot row %s: rw=%s bs=%s iodepth=%s numjobs=%s iops=%.0f bw=%s KiB/s lat=%.0f ns"
              % (host, r.get("rw"), r.get("bs"), r.get("iodepth"), r.get("numjobs"), r.get("iops", 0), r.get("bw"), r.get("lat", 0)))
    for b in bad:
        print("BAD: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
