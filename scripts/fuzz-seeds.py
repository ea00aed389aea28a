#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets in fuzz/fuzz_targets/ from the golden wire vectors.

Usage: scripts/fuzz-seeds.py OUTDIR      (writes OUTDIR/<target>/<name>, replacing nothing else)

Each target gets its inputs in the format its header comment gives:

  rpc_call              a record-marked stream of calls: each golden call record as captured (marks
                        included), plus one stream of several calls
  rpc_reply             prog, vers, proc (three big-endian words), then a record-marked reply
  nfs3_args             procedure (big-endian word), then the NFSv3 arguments without the RPC header
  nfs3_results          procedure, then the NFSv3 results of an accepted SUCCESS reply
  mount_args            procedure, then the MOUNTv3 arguments
  mount_results         procedure, then the MOUNTv3 results
  auth_sys              the body of each distinct AUTH_SYS credential
  record_marking        a chunk-size byte, then a record-marked stream (records up to 64 KiB, the
                        target's limit, and the two-fragment EXPORT reply)
  rpcrdma_header        each RPC-over-RDMA Send payload (transport header and inline RPC message)
  rpcrdma_private_data  the RFC 8797 private data of the RDMA-CM REQ and REP
  rdma_server_receive   each RPC-over-RDMA Send payload, as the server receives it
  rdma_client_reply     the Write and Reply chunk buffers offered (two words: 1 MiB each, and none), then
                        each RPC-over-RDMA Send payload, as the client receives it
  pcap                  small captures cut from the golden ones: the first packets of each, and every
                        packet of the connection that carried the two-fragment EXPORT reply
  client_framing        a chunk-count byte n, a limits byte, n chunk sizes, then a record-marked
                        stream: each golden record up to 64 KiB (and the two-fragment EXPORT reply), plus
                        one stream of several replies
  client_replies        procedure, the call's READ/WRITE count, payload length (u32::MAX: none, TCP),
                        then each NFSv3 reply record without marks; READ replies also as RPC-over-RDMA
                        would deliver them (the data cut out of the record into the payload)
  fio_job               job files (jobs/*.fio, the report fixtures and a few written here covering
                        include, ${VAR}, $ncpus arithmetic and every option), then NUL-separated
                        command-line arguments
  mount_options         a target, NUL, a mount option string (targets and options as the docs and
                        tests of crates/mount-options write them)
  compare_plan          `nfsbench compare` plan files (plans/*.toml)
  mountstats            mount.nfs options, NUL, /proc/self/mountstats text: the golden captures of
                        Linux 6.1 (crates/mountstats/testdata)
  nfs4_compound         the NFSv4 body of each golden v4 record (testdata/golden/v4): COMPOUND and
                        CB_COMPOUND arguments of calls, results of accepted replies
  wire_hello            the wire-baseline hello of each mode
  job_result_wire       job results as MPI ranks send them to rank 0 (crates/report/src/wire.rs), written
                        here: no jobs, one job with reads, a group of clones with reads, writes, syncs,
                        errors and several rate series, and a message of another version

Python 3 standard library only; deterministic for given golden files.
"""

import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "testdata" / "golden"

NFS_PROGRAM, MOUNT_PROGRAM = 100003, 100005
AUTH_SYS = 1
LAST_FRAGMENT = 0x8000_0000
RECORD_MARKING_MAX = 64 * 1024  # RecordLimits.max_record in fuzz_targets/record_marking.rs
# fuzz_targets/client_framing.rs: max_record = 64 KiB >> (b & 7), max_fragments = 1 + (b >> 3).
CLIENT_FRAMING_LIMITS = 31 << 3  # 64 KiB, 32 fragments
NFS_READ, NFS_WRITE = 6, 7
NO_PAYLOAD = 0xFFFF_FFFF  # fuzz_targets/client_replies.rs: a TCP reply, no separately placed data
PCAP_CUT_BYTES = 64 * 1024  # size of the "first packets" cuts


def pad4(n):
    return (4 - n % 4) % 4


def record_payload(marked):
    """The record without its record marks (RFC 5531 section 11), fragments joined."""
    out, at = bytearray(), 0
    while at < len(marked):
        (mark,) = struct.unpack_from(">I", marked, at)
        length = mark & ~LAST_FRAGMENT
        out += marked[at + 4 : at + 4 + length]
        at += 4 + length
    return bytes(out)


def opaque_auth(record, at):
    """(flavor, body, offset after) of the opaque_auth at `at` (RFC 5531 section 8.2)."""
    flavor, length = struct.unpack_from(">II", record, at)
    body = record[at + 8 : at + 8 + length]
    return flavor, body, at + 8 + length + pad4(length)


def call_header(record):
    """(credential flavor, credential body, header length) of a call (RFC 5531 section 9)."""
    flavor, body, at = opaque_auth(record, 24)  # xid, msg_type, rpcvers, prog, vers, proc
    _, _, at = opaque_auth(record, at)  # verifier
    return flavor, body, at


def reply_results_offset(record):
    """Where the results of an accepted SUCCESS reply start, or None when it carries none."""
    reply_stat, = struct.unpack_from(">I", record, 8)
    if reply_stat != 0:  # MSG_DENIED
        return None
    _, _, at = opaque_auth(record, 12)
    (accept_stat,) = struct.unpack_from(">I", record, at)
    return at + 4 if accept_stat == 0 else None


class Corpus:
    def __init__(self, outdir):
        self.outdir = Path(outdir)
        self.counts = {}

    def add(self, target, name, data):
        directory = self.outdir / target
        directory.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data)
        self.counts[target] = self.counts.get(target, 0) + 1


def tcp_seeds(corpus):
    index = json.loads((GOLDEN / "index.json").read_text())
    credentials = {}
    stream = bytearray()
    chunk_sizes = [1, 3, 4, 5, 8, 13, 64, 255]
    for n, entry in enumerate(index):
        marked = (GOLDEN / entry["file"]).read_bytes()
        record = record_payload(marked)
        name = Path(entry["file"]).stem
        key = (entry["prog"], entry["vers"])
        proc_word = struct.pack(">I", entry["proc"])
        if entry["direction"] == "call":
            corpus.add("rpc_call", name, marked)
            if len(stream) < 4096:
                stream += marked
            flavor, cred, header_len = call_header(record)
            if flavor == AUTH_SYS:
                credentials.setdefault(cred, name)
            if key == (NFS_PROGRAM, 3):
                corpus.add("nfs3_args", name, proc_word + record[header_len:])
            elif key == (MOUNT_PROGRAM, 3):
                corpus.add("mount_args", name, proc_word + record[header_len:])
        else:
            corpus.add("rpc_reply", name, struct.pack(">III", entry["prog"], entry["vers"], entry["proc"]) + marked)
            results = reply_results_offset(record)
            if results is not None and key == (NFS_PROGRAM, 3):
                corpus.add("nfs3_results", name, proc_word + record[results:])
            elif results is not None and key == (MOUNT_PROGRAM, 3):
                corpus.add("mount_results", name, proc_word + record[results:])
        if len(record) <= RECORD_MARKING_MAX or entry["fragments"] > 1:
            corpus.add("record_marking", name, bytes([chunk_sizes[n % len(chunk_sizes)]]) + marked)
    corpus.add("rpc_call", "stream-of-calls", bytes(stream))
    corpus.add("record_marking", "stream-of-calls", bytes([7]) + bytes(stream))
    for cred, name in credentials.items():
        corpus.add("auth_sys", name, cred)


def rdma_seeds(corpus):
    for entry in json.loads((GOLDEN / "rpcrdma" / "index.json").read_text()):
        data = (GOLDEN / entry["file"]).read_bytes()
        target = "rpcrdma_header" if entry["kind"] == "rpcrdma_message" else "rpcrdma_private_data"
        corpus.add(target, Path(entry["file"]).stem, data)
        if entry["kind"] == "rpcrdma_message":
            corpus.add("rdma_server_receive", Path(entry["file"]).stem, data)
            for offered, tag in ((struct.pack(">II", 1 << 20, 1 << 20), "both"), (struct.pack(">II", NO_PAYLOAD, NO_PAYLOAD), "none")):
                corpus.add("rdma_client_reply", Path(entry["file"]).stem + "-" + tag, offered + data)


def pcap_packets(path):
    """(global header, [packet records]) of a classic pcap file, each record with its 16-byte header."""
    data = path.read_bytes()
    magic = data[:4]
    if magic == b"\xd4\xc3\xb2\xa1":
        endian = "<"
    elif magic == b"\xa1\xb2\xc3\xd4":
        endian = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file")
    packets, at = [], 24
    while at + 16 <= len(data):
        incl_len = struct.unpack_from(endian + "I", data, at + 8)[0]
        packets.append(data[at : at + 16 + incl_len])
        at += 16 + incl_len
    return data[:24], packets


def tcp_ports(packet):
    """(source port, destination port) of an Ethernet/IPv4/TCP packet record, else None."""
    frame = packet[16:]
    if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
        return None
    ihl = (frame[14] & 0x0F) * 4
    if len(frame) < 14 + ihl + 4:
        return None
    return struct.unpack_from(">HH", frame, 14 + ihl)


def pcap_seeds(corpus):
    index = json.loads((GOLDEN / "index.json").read_text())
    for pcap in ("nfs3-tcp.pcap", "nfs3-rdma.pcap"):
        header, packets = pcap_packets(GOLDEN / pcap)
        cut, size = [], 24
        for p in packets:
            if size + len(p) > PCAP_CUT_BYTES:
                break
            cut.append(p)
            size += len(p)
        corpus.add("pcap", f"{Path(pcap).stem}-first-{len(cut)}-packets.pcap", header + b"".join(cut))
    # The whole TCP connection that carried the two-fragment record: handshake, calls, replies, close.
    header, packets = pcap_packets(GOLDEN / "nfs3-tcp.pcap")
    for entry in index:
        if entry["fragments"] < 2:
            continue
        ends = entry["connection"].split(" > ")
        ports = {int(ends[0].rsplit(":", 1)[1]), int(ends[1].rsplit(":", 1)[1])}
        conversation = [p for p in packets if (tcp := tcp_ports(p)) is not None and set(tcp) == ports]
        name = f"connection-of-{Path(entry['file']).stem}.pcap"
        corpus.add("pcap", name, header + b"".join(conversation))


def opaque_end(data, at):
    """Offset after the variable-length opaque at `at` (RFC 4506 section 4.10)."""
    (length,) = struct.unpack_from(">I", data, at)
    return at + 4 + length + pad4(length)


def call_count(record):
    """The count of a READ or WRITE call (RFC 1813 sections 3.3.6, 3.3.7): after file handle and offset."""
    _, _, header_len = call_header(record)
    (count,) = struct.unpack_from(">I", record, opaque_end(record, header_len) + 8)
    return count


def read_data_offset(record, results):
    """Where the data of a successful READ reply starts (after status, post_op_attr, count, eof, length)."""
    (status,) = struct.unpack_from(">I", record, results)
    if status != 0:
        return None
    (attributes_follow,) = struct.unpack_from(">I", record, results + 4)
    return results + 8 + (84 if attributes_follow else 0) + 12  # fattr3 is 84 bytes


def client_seeds(corpus):
    """Seeds for the NFS client's own decoders: its receive framing and its reply decoders."""
    index = json.loads((GOLDEN / "index.json").read_text())
    by_file = {entry["file"]: entry for entry in index}
    chunk_sizes = [b"", b"\x01", b"\x03\x40", b"\x04\x05\x0d", b"\xff", b"\x08\x01\x40"]
    replies = bytearray()
    for n, entry in enumerate(index):
        marked = (GOLDEN / entry["file"]).read_bytes()
        record = record_payload(marked)
        name = Path(entry["file"]).stem
        if len(record) <= RECORD_MARKING_MAX or entry["fragments"] > 1:
            sizes = chunk_sizes[n % len(chunk_sizes)]
            corpus.add("client_framing", name, bytes([len(sizes), CLIENT_FRAMING_LIMITS]) + sizes + marked)
        if entry["direction"] != "reply":
            continue
        if len(replies) < 4096:
            replies += marked
        if (entry["prog"], entry["vers"]) != (NFS_PROGRAM, 3):
            continue
        arg = 0
        if entry["proc"] in (NFS_READ, NFS_WRITE) and entry.get("pair") in by_file:
            arg = call_count(record_payload((GOLDEN / entry["pair"]).read_bytes()))
        head = struct.pack(">III", entry["proc"], arg, NO_PAYLOAD)
        corpus.add("client_replies", name, head + record)
        results = reply_results_offset(record)
        if entry["proc"] == NFS_READ and results is not None:
            data_at = read_data_offset(record, results)
            if data_at is not None:
                (length,) = struct.unpack_from(">I", record, data_at - 4)
                data = record[data_at : data_at + length]
                head = struct.pack(">III", entry["proc"], arg, len(data))
                corpus.add("client_replies", name + "-rdma", head + record[:data_at] + data)
    sizes = chunk_sizes[2]
    corpus.add("client_framing", "stream-of-replies", bytes([len(sizes), CLIENT_FRAMING_LIMITS]) + sizes + replies)


FIO_JOBS = {
    "every-option": """\
[global]
description=every option once
kb_base=1024
ioengine=libaio
thread
invalidate=1
gtod_reduce=0
group_reporting
percentile_list=50:99:99.9
clat_percentiles=1
lat_percentiles=0
[all]
name=all
rw=randrw
rwmixread=70
bs=4k
bsrange=4k-64k
bssplit=4k/50:64k/50
size=64m
filesize=1m-4m
nrfiles=4
filename=a\\:b:c
directory=/d1:/d2
offset=0
iodepth=16
numjobs=2
runtime=10s
time_based
ramp_time=1
startdelay=0-2
loops=2
direct=1
fsync=8
fdatasync=0
end_fsync=1
create_on_open=1
verify=crc32c
verify_fatal=1
verify_interval=4k
do_verify=1
randrepeat=0
randseed=1234
norandommap
stonewall
[next]
wait_for_previous
new_group
rw=write
bs=1M
buffered=1
filesize=8m
size=50%
""",
    "substitutions": """\
; ${VAR}, $ncpus arithmetic and include, as fio reads them
[global]
include common.fio
numjobs=$ncpus/2
size=$mb_memory*1024*1024/4
[job]
bs=${BS}
rw=${RW}
iodepth=($ncpus+2)*4
runtime=${EMPTY}30
include nested.fio
""",
    "include-loop": "[job]\ninclude self.fio\n",
    "include-section": "[job]\ninclude section.fio\n",
    "units": "[u]\nbs=0x1000\nsize=4KiB\noffset=(1024*4)\nruntime=1h\nramp_time=500ms\nstartdelay=2m\nkb_base=1000\n",
    "bad": "option-outside-section=1\n[]\n[job\n",
}

FIO_ARGS = [
    ["--name=cmd", "--rw=randread", "--bs=4k", "--size=1m", "--output-format=json+"],
    ["--iodepth", "8", "--name=global", "--numjobs=2", "--name=a", "--time_based", "--runtime", "5"],
    ["--output_format=json,normal", "--name", "x", "--bs=4k,8k", "--size=1m"],
]

MOUNT_CASES = [
    ("127.0.0.1:/export", "vers=3,nconnect=2,timeo=600,retrans=2"),
    ("127.0.0.1:/export", "nconnect=4,remoteports=127.0.0.1-127.0.0.2,noac"),
    ("server:/export", "vers=3,proto=tcp,port=2049,nconnect=16,rsize=1048576,wsize=1048576,timeo=600,retrans=2"),
    ("server:/export", "rdma,nconnect=3,soft,ro,timeo=15,retrans=0,mountport=20048"),
    ("server:/export", "rdma,port=0"),
    ("server:/export", "rsize=1000000,wsize=3000,timeo=9000,noac,nolock,softerr"),
    ("server:/export", "remoteports=10.0.0.1~10.0.0.2~::1~10.0.0.9~10.0.0.3,nconnect=5"),
    ("server:/export", "addr=192.0.2.1,mountproto=tcp,mountvers=3,sec=sys,hard,rw,nfsvers=3"),
    ("[::1]:/export", "nconnect=2,proto=tcp,v3"),
    ("nfs://h:2049/export?uid=7&gid=8&nconnect=4&dircache=0", None),
    ("nfs://[::1]:2049/ex%20port?version=3&nfsport=2049&mountport=20048&readonly&debug=2", "port=0"),
    ("nfs://127.0.0.1/export?autoreconnect=-1&readahead=0&pagecache=0&readdir-buffer=8192,65536", None),
    ("host:/export", "vers=4,udp,sec=krb5,xprtsec=tls,intr,lookupcache=none,actimeo=0"),
]


def config_seeds(corpus):
    """Seeds for the text parsers: fio job files, mount targets with options, plans, mountstats."""
    files = sorted((ROOT / "jobs").glob("*.fio")) + sorted((ROOT / "crates").glob("*/tests/fixtures/*.fio"))
    texts = [(f.stem, f.read_text()) for f in files] + list(FIO_JOBS.items())
    for name, text in texts:
        corpus.add("fio_job", name, text.encode())
    for n, args in enumerate(FIO_ARGS):
        job = texts[n % len(texts)][1] if n else ""
        corpus.add("fio_job", f"args-{n}", "\0".join([job] + args).encode())
    for n, (target, options) in enumerate(MOUNT_CASES):
        text = target if options is None else f"{target}\0{options}"
        corpus.add("mount_options", f"case-{n:02}", text.encode())
    for plan in sorted((ROOT / "plans").glob("*.toml")):
        corpus.add("compare_plan", plan.stem, plan.read_bytes())
    # mountstats: options asked NUL the kernel's text, from the golden captures of Linux 6.1.
    for f in sorted((ROOT / "crates/mountstats/testdata").glob("*.txt")):
        if f.name != "kernel.txt":
            corpus.add("mountstats", f.stem, b"vers=4.1,proto=rdma,nconnect=4,rsize=4194304\0" + f.read_bytes())
    # The wire-baseline hello: magic, version 2, mode (1 stream, 2 ping-pong), 2 reserved, size (BE).
    for mode, size in ((1, 1 << 20), (2, 64)):
        corpus.add("wire_hello", f"mode-{mode}", b"NFSBWIRE" + bytes([2, mode, 0, 0]) + size.to_bytes(4, "big"))


# crates/report/src/wire.rs: version 1 of the job-results byte form (compact JSON, fields in this order).
WIRE_FORMAT, WIRE_VERSION = "nfsbench-job-results", 1


def wire_stat(samples):
    """A latency distribution of these nanosecond samples. Distinct values here are far enough apart to
    fall in distinct HDR buckets (3 significant digits), so each is its own [value, count] pair."""
    counts = {}
    for v in samples:
        counts[v] = counts.get(v, 0) + 1
    return {
        "count": len(samples),
        "min": min(samples, default=0),
        "max": max(samples, default=0),
        "sum": sum(samples),
        "sum_sq": sum(v * v for v in samples),
        "hist": [[v, n] for v, n in sorted(counts.items())],
    }


def wire_dir(ios):
    """One direction: ios is a list of (bytes, slat, clat)."""
    return {
        "bytes": sum(b for b, _, _ in ios),
        "ios": len(ios),
        "short": 0,
        "dropped": 0,
        "slat": wire_stat([s for _, s, _ in ios]),
        "clat": wire_stat([c for _, _, c in ios]),
        "lat": wire_stat([s + c for _, s, c in ios]),
    }


def wire_job(name, reads, writes=(), syncs=(), series=None, jobs=1, errors=0):
    f64 = lambda x: struct.unpack("<Q", struct.pack("<d", x))[0]  # noqa: E731
    n = len(reads) + len(writes)
    return {
        "name": name,
        "groupid": 0,
        "jobs": jobs,
        "error": 0,
        "runtime_ns": 1_000_000_000,
        "recorder": {
            "read": wire_dir(reads),
            "write": wire_dir(writes),
            "sync": wire_stat(list(syncs)),
            "lat_buckets_ns": [0] * 10,
            "lat_buckets_us": [0, 0, n, 0, 0, 0, 0, 0, 0, 0],
            "lat_buckets_ms": [0] * 12,
            "depth_map": [n, 0, 0, 0, 0, 0, 0],
            "submit_map": [0, n, 0, 0, 0, 0, 0],
            "complete_map": [0, n, 0, 0, 0, 0, 0],
            "first_error": 5 if errors else 0,
            "total_errors": errors,
            "series": series
            or [{"read_bytes": [sum(b for b, _, _ in reads)], "read_ios": [len(reads)], "write_bytes": [],
                 "write_ios": [], "end_ns": 600_000_000}],
            "member_runtime_ms": 1000 * jobs if jobs > 1 else None,
        },
        "cpu": {
            "usr_pct_bits": f64(1.5), "sys_pct_bits": f64(20.25), "ctx": 1000, "majf": 0, "minf": 12,
            "host_usr_pct_bits": f64(3.0), "host_sys_pct_bits": f64(7.0), "host_idle_pct_bits": f64(90.0),
            "cpu_seconds_bits": f64(0.217),
        },
        "job_options": [["rw", "randrw"], ["bs", "4k"], ["group_reporting", ""]],
        "description": "seed" if jobs > 1 else None,
        "verify_errors": 0,
    }


def wire_message(jobs, version=WIRE_VERSION):
    doc = {"format": WIRE_FORMAT, "version": version, "jobs": jobs}
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def wire_seeds(corpus):
    """Seeds for the job-results byte form that MPI ranks send to rank 0."""
    reads = [(4096, 40, 1500), (4096, 41, 25_000), (4096, 0, 4_000_000)]
    writes = [(65536, 90, 180_000), (65536, 95, 7_000_000_000)]
    rate = {"read_bytes": [8192, 0, 4096], "read_ios": [2, 0, 1], "write_bytes": [65536, 65536],
            "write_ios": [1, 1], "end_ns": 1_500_000_000}
    grouped = wire_job("clones", reads, writes, syncs=[30_000, 700_000], series=[rate, rate, rate], jobs=3,
                       errors=2)
    corpus.add("job_result_wire", "no-jobs", wire_message([]))
    corpus.add("job_result_wire", "one-job", wire_message([wire_job("reader", reads[:2])]))
    corpus.add("job_result_wire", "grouped-clones", wire_message([grouped, wire_job("reader", reads)]))
    corpus.add("job_result_wire", "other-version", wire_message([], version=2))


def nfs4_seeds(corpus):
    """The COMPOUND / CB_COMPOUND bodies of the golden NFSv4.1/4.2 records (NULLs carry none)."""
    v4 = ROOT / "testdata/golden/v4"
    for entry in json.loads((v4 / "index.json").read_text()):
        if entry["proc"] != 1:
            continue
        record = record_payload((v4 / entry["file"]).read_bytes())
        if entry["direction"] == "call":
            at = call_header(record)[2]
        else:
            at = reply_results_offset(record)
            if at is None:
                continue
        corpus.add("nfs4_compound", Path(entry["file"]).stem, record[at:])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    corpus = Corpus(sys.argv[1])
    tcp_seeds(corpus)
    rdma_seeds(corpus)
    pcap_seeds(corpus)
    client_seeds(corpus)
    config_seeds(corpus)
    wire_seeds(corpus)
    nfs4_seeds(corpus)
    for target, count in sorted(corpus.counts.items()):
        print(f"{target}: {count} seeds")


if __name__ == "__main__":
    main()
