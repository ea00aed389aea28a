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
  pcap                  small captures cut from the golden ones: the first packets of each, and every
                        packet of the connection that carried the two-fragment EXPORT reply

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


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    corpus = Corpus(sys.argv[1])
    tcp_seeds(corpus)
    rdma_seeds(corpus)
    pcap_seeds(corpus)
    for target, count in sorted(corpus.counts.items()):
        print(f"{target}: {count} seeds")


if __name__ == "__main__":
    main()
