"""bench/lib/benchlib.py — what the benchmark scripts in bench/ share.

- CPU sampling from procfs: `python3 bench/lib/benchlib.py sample OUT SPEC...` writes a line every 50 ms
  until SIGTERM: "epoch_seconds machine_busy_ticks ticks(SPEC1) ticks(SPEC2) ...". A SPEC is a PID
  (utime+stime of all its threads; -1 once it is gone) or tree:PIDFILE (the process whose PID the file
  holds, once it does, with all its descendants, reaped ones included; 0 before, never decreasing).
- fio-format JSON, fio's own or `nfsbench run`'s: read (after any text fio prints first), checked (no
  errors, every issued I/O completed, no short or dropped I/Os, the whole runtime run) and summed over jobs.
- CPU over a run's measured window from the samples; CSV rows; number formats.
- `python3 bench/lib/benchlib.py null PORT PROG VERS`: an RPC NULL call straight to PORT (no rpcbind).

The scripts' own helpers import it (PYTHONPATH=bench/lib).
"""
import csv
import json
import math
import os
import signal
import statistics
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")

# --- procfs ----------------------------------------------------------------------------------------------


def _stat_fields(pid):
    with open("/proc/%s/stat" % pid) as f:
        s = f.read()
    return s[s.rindex(")") + 2:].split()   # fields from 3 (state) on


def proc_ticks(pid):
    """utime + stime (fields 14, 15) of all threads of PID; -1 when it is gone."""
    try:
        rest = _stat_fields(pid)
    except (OSError, ValueError):
        return -1
    return int(rest[11]) + int(rest[12])


def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is inside user)
    return v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)


class ProcessTree:
    """CPU ticks of a process and its descendants: utime+stime+cutime+cstime of each (a child's time moves
    into its parent's cutime when reaped). The root's PID comes from a file written once it is started;
    descendants are found by scanning /proc every `rescan` calls (no /proc/PID/task/TID/children here)."""

    def __init__(self, pidfile, rescan=10):
        self.pidfile, self.rescan = pidfile, rescan
        self.root, self.pids, self.calls, self.last = None, set(), 0, 0

    def _scan(self):
        kids = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    kids.setdefault(int(_stat_fields(d)[1]), []).append(int(d))
                except (OSError, ValueError, IndexError):
                    pass
        todo, seen = [self.root], set()
        while todo:
            p = todo.pop()
            if p not in seen:
                seen.add(p)
                todo.extend(kids.get(p, []))
        self.pids |= seen

    def ticks(self):
        if self.root is None:
            try:
                with open(self.pidfile) as f:
                    self.root = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                return 0
            self.pids = {self.root}
        if self.calls % self.rescan == 0:
            self._scan()
        self.calls += 1
        total = 0
        for p in list(self.pids):
            try:
                r = _stat_fields(p)
                total += int(r[11]) + int(r[12]) + int(r[13]) + int(r[14])
            except (OSError, ValueError, IndexError):
                self.pids.discard(p)
        self.last = max(self.last, total)
        return self.last


def cmd_sample(out, *specs):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    readers = [ProcessTree(s[5:]).ticks if s.startswith("tree:") else (lambda p=s: proc_ticks(p)) for s in specs]
    with open(out, "w") as f:
        while True:
            f.write("%.4f %d %s\n" % (time.time(), busy_ticks(), " ".join(str(r()) for r in readers)))
            f.flush()
            if stop:
                break
            time.sleep(0.05)


def read_samples(path):
    samples = []
    for line in open(path):
        p = line.split()
        if len(p) >= 3:
            samples.append([float(p[0])] + [int(x) for x in p[1:]])
    return samples


def interp(samples, col, t):
    """Piecewise-linear value of column `col` of samples [(t, values...)] at time t (clamped)."""
    if t <= samples[0][0]:
        return samples[0][col]
    for a, b in zip(samples, samples[1:]):
        if a[0] <= t <= b[0]:
            if b[0] == a[0]:
                return b[col]
            return a[col] + (b[col] - a[col]) * (t - a[0]) / (b[0] - a[0])
    return samples[-1][col]


def window_seconds(samples, col, t0, t1):
    """CPU seconds a sampled tick counter advanced between t0 and t1 (col 1 = machine busy, 2.. = SPECs)."""
    return (interp(samples, col, t1) - interp(samples, col, t0)) / CLK_TCK


# --- RPC NULL ------------------------------------------------------------------------------------------


def cmd_null(port, prog, vers, host="127.0.0.1", timeout=5.0):
    """ONC RPC NULL call (AUTH_NONE) over TCP straight to PORT; exit 0 when the reply is accepted with
    SUCCESS. Unlike `rpcinfo -n PORT`, which asks rpcbind first and so fails for a server whose program
    another instance unregistered (a second Ganesha on this machine does that when it stops)."""
    import socket
    import struct
    xid = os.getpid() & 0xFFFFFFFF
    call = struct.pack(">10I", xid, 0, 2, int(prog), int(vers), 0, 0, 0, 0, 0)
    try:
        with socket.create_connection((host, int(port)), timeout=timeout) as s:
            s.sendall(struct.pack(">I", 0x80000000 | len(call)) + call)
            data = b""
            while len(data) < 4 + 24:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
    except OSError as e:
        print("rpc null %s:%s prog %s vers %s: %s" % (host, port, prog, vers, e), file=sys.stderr)
        sys.exit(1)
    # record mark, xid, REPLY(1), MSG_ACCEPTED(0), verifier (flavor, length 0), accept_stat SUCCESS(0)
    if len(data) < 28 or struct.unpack(">6I", data[4:28]) != (xid, 1, 0, 0, 0, 0):
        print("rpc null %s:%s prog %s vers %s: not accepted" % (host, port, prog, vers), file=sys.stderr)
        sys.exit(1)


# --- fio-format JSON -------------------------------------------------------------------------------------


def load_fio(path):
    text = open(path).read()   # fio may print warnings before the JSON
    start = 0 if text.startswith("{") else text.index("\n{") + 1
    return json.JSONDecoder().raw_decode(text, start)[0]


BS_BYTES = {"4k": 4096, "1m": 1 << 20}


def summarize(j, rw, bs, iodepth, numjobs=None, runtime_s=None):
    """Sum one run's jobs in the direction of rw; returns (summary dict, problems). Client CPU is fio's
    formula: sum over jobs of (usr_cpu + sys_cpu) % × job_runtime (for `nfsbench run` every clone reports
    an equal share of its process, so the sum is the process's)."""
    jobs = j["jobs"]
    problems = []
    d = "read" if "read" in rw else "write"
    bsb = BS_BYTES.get(bs) or int(bs)
    if numjobs is not None and len(jobs) != int(numjobs):
        problems.append("%d jobs reported, %s expected" % (len(jobs), numjobs))
    for x in jobs:
        if x["error"]:
            problems.append("job %s error %d" % (x["jobname"], x["error"]))
        s = x[d]
        # After ramp_time fio resets its counters with up to iodepth I/Os in flight: those complete into
        # io_bytes without having been counted as issued, so completed = issued + (iodepth - 1) is normal.
        # Issued > completed means I/Os lost at teardown (see lab/peers/fio-nfs-drain.patch).
        done = s["io_bytes"] // bsb
        if done < s["total_ios"] or done - s["total_ios"] > int(iodepth):
            problems.append("%d issued, %d completed" % (s["total_ios"], done))
        if s["short_ios"] or s["drop_ios"]:
            problems.append("short %d dropped %d" % (s["short_ios"], s["drop_ios"]))
        # a time-based job that stopped early (an I/O error not counted as one, a lost connection)
        if runtime_s is not None and x["job_runtime"] < 900 * float(runtime_s):
            problems.append("job %s ran %d ms of %s s" % (x["jobname"], x["job_runtime"], runtime_s))
    ios = sum(x[d]["total_ios"] for x in jobs)
    if ios == 0:
        problems.append("no I/O completed")
    out = dict(
        ios=ios,
        bytes=sum(x[d]["io_bytes"] for x in jobs),
        runtime=max(x["job_runtime"] for x in jobs) / 1000.0 if jobs else 0.0,
        iops=sum(x[d]["iops"] for x in jobs),
        bw=sum(x[d]["bw_bytes"] for x in jobs),
        lat_us=sum(x[d]["lat_ns"]["mean"] * x[d]["total_ios"] for x in jobs) / max(ios, 1) / 1e3,
        p99_us=max([x[d]["clat_ns"].get("percentile", {}).get("99.000000", 0) for x in jobs] or [0]) / 1e3,
        client_cpu=sum((x["usr_cpu"] + x["sys_cpu"]) / 100.0 * x["job_runtime"] / 1000.0 for x in jobs),
        end=j["timestamp_ms"] / 1000.0,
    )
    return out, problems


def check_run(rc, err_path, json_path, tool, rw, bs, iodepth, numjobs, runtime_s, allowed=()):
    """One measured run: (summary or None, problems) from its exit status, stderr and JSON."""
    problems = [] if rc == "0" else ["%s exit %s" % (tool, rc)]
    problems += stderr_problems(err_path, tool, allowed)
    try:
        s, p = summarize(load_fio(json_path), rw, bs, iodepth, numjobs, runtime_s)
        problems += p
    except Exception as e:   # no or broken JSON: the run failed
        s = None
        problems.append("no %s JSON (%s)" % (tool, type(e).__name__))
    return s, problems


def cmd_layout(json_path, want, t0, what):
    """A write pass with verify laid out the files: every job wrote and read back `want` bytes."""
    j, want = load_fio(json_path), int(want)
    bad = [x["jobname"] for x in j["jobs"]
           if x["error"] or x["write"]["io_bytes"] != want or x["read"]["io_bytes"] != want]
    print("bench: %s: %d × %d MiB written and verified (crc32c read-back) in %.1f s (write %.0f MB/s)%s" % (
        what, len(j["jobs"]), want >> 20, time.time() - float(t0),
        sum(x["write"]["bw_bytes"] for x in j["jobs"]) / 1e6, "; BAD: " + ", ".join(bad) if bad else ""),
        file=sys.stderr)
    sys.exit(1 if bad else 0)


def stderr_problems(path, tool, allowed=()):
    """A problem for a tool's stderr unless every line starts with one of `allowed`."""
    if not os.path.exists(path):
        return []
    lines = [l for l in open(path).read().strip().splitlines() if l.strip()]
    bad = [l for l in lines if not l.startswith(tuple(allowed))] if allowed else lines
    if not bad:
        return []
    return ["%s stderr (%d lines): %s" % (tool, len(bad), bad[0][:120])]


# --- CSV and formats -------------------------------------------------------------------------------------


def append_row(csv_path, fields, row):
    new = not os.path.exists(csv_path) or os.path.getsize(csv_path) == 0
    with open(csv_path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        if new:
            w.writeheader()
        w.writerow(row)


def paired_ratios(rows, who_key, a, b, key):
    """Per-rep ratios a/b of column `key`, pairing the rows of the same rep (who_key: "server", "client")."""
    by = {}
    for r in rows:
        by.setdefault(r["rep"], {})[r[who_key]] = float(r[key])
    return [v[a] / v[b] for v in by.values() if a in v and b in v and v[b]]


def print_problems(rows, who_key, title):
    """The runs whose status is not "ok", one line each under `title`."""
    problems = [r for r in rows if r["status"] != "ok"]
    if problems:
        print()
        print("== %s (%d)" % (title, len(problems)))
        for r in problems:
            print("  %s %s rep %s: %s" % (r["cell"], r[who_key], r["rep"], r["status"]))


def run_command(commands):
    """The helper's command line: COMMAND ARGS..., COMMAND one of `commands` (name -> function)."""
    cmd, args = sys.argv[1], sys.argv[2:]
    commands[cmd](*args)


def fmt_num(v, kind):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if kind == "iops":
        return "%.1fk" % (v / 1e3)
    if kind == "int":
        return "%.0f" % v
    if kind == "x":
        return "%.2f×" % v
    return "%.2f" % v if v < 100 else "%.0f" % v


def spread(vals, kind, center=statistics.mean):
    """'center [min–max]' of vals (just the value for one)."""
    if not vals:
        return "-"
    txt = fmt_num(center(vals), kind)
    if len(vals) > 1:
        txt += " [%s–%s]" % (fmt_num(min(vals), kind), fmt_num(max(vals), kind))
    return txt


if __name__ == "__main__":
    run_command({"sample": cmd_sample, "layout": cmd_layout, "null": cmd_null})
