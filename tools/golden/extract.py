#!/usr/bin/env python3
"""Golden wire vectors: cut a capture of real ONC RPC traffic into records and index them.

    tools/golden/extract.py [--dir testdata/golden] [--readme tools/golden/README.md]

Reads nfs3-tcp.pcap written by tools/golden/capture.sh, reassembles every TCP stream direction in sequence
order, splits it at RPC record marks (RFC 5531 section 11; a record is kept whole with all its
fragment headers) and writes a small, deduplicated but complete set of records:

    OUT/records/NNNN-<prog><vers>-<PROC>-<call|reply>.bin   the exact bytes on the wire, marks included
    OUT/index.json                                          one object per record (schema: README.md)

Every call that is kept is kept with its reply (consecutive numbers). Alongside what this script parses
itself (xid, program, version, procedure, fragments), each record carries the fields tshark's own
dissectors found in it ("tshark": {...}), an independent oracle for decoder tests, and whether tshark
flagged the message as malformed.

Python 3 standard library only; tshark (Wireshark 4.x) runs as a subprocess.
"""
import argparse
import collections
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # importing rdma.py must leave no __pycache__ in the tree
import rdma  # noqa: E402  (tools/golden/rdma.py: RoCEv2 and RPC-over-RDMA parsing)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# ------------------------------------------------------------------------------------------------
# Names of programs and procedures (RFC 1813 for NFSv3 and MOUNTv3, RFC 1833 for portmap/rpcbind).

PROGRAMS = {100000: "portmap", 100003: "nfs", 100005: "mount", 100227: "nfsacl"}
NFS3_PROCS = ["NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE",
              "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR",
              "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT"]
MOUNT3_PROCS = ["NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT"]
PMAP2_PROCS = ["NULL", "SET", "UNSET", "GETPORT", "DUMP", "CALLIT"]
RPCB3_PROCS = ["NULL", "SET", "UNSET", "GETADDR", "DUMP", "CALLIT", "GETTIME", "UADDR2TADDR",
               "TADDR2UADDR"]
RPCB4_PROCS = RPCB3_PROCS[:5] + ["BCAST"] + RPCB3_PROCS[6:] + ["GETVERSADDR", "INDIRECT",
                                                              "GETADDRLIST", "GETSTAT"]
NFSACL3_PROCS = ["NULL", "GETACL", "SETACL"]
PROC_TABLES = {(100003, 3): NFS3_PROCS, (100005, 3): MOUNT3_PROCS, (100005, 1): MOUNT3_PROCS,
               (100000, 2): PMAP2_PROCS, (100000, 3): RPCB3_PROCS, (100000, 4): RPCB4_PROCS,
               (100227, 3): NFSACL3_PROCS}

NFSSTAT3 = {0: "NFS3_OK", 1: "NFS3ERR_PERM", 2: "NFS3ERR_NOENT", 5: "NFS3ERR_IO", 6: "NFS3ERR_NXIO",
            13: "NFS3ERR_ACCES", 17: "NFS3ERR_EXIST", 18: "NFS3ERR_XDEV", 19: "NFS3ERR_NODEV",
            20: "NFS3ERR_NOTDIR", 21: "NFS3ERR_ISDIR", 22: "NFS3ERR_INVAL", 27: "NFS3ERR_FBIG",
            28: "NFS3ERR_NOSPC", 30: "NFS3ERR_ROFS", 31: "NFS3ERR_MLINK", 63: "NFS3ERR_NAMETOOLONG",
            66: "NFS3ERR_NOTEMPTY", 69: "NFS3ERR_DQUOT", 70: "NFS3ERR_STALE", 71: "NFS3ERR_REMOTE",
            10001: "NFS3ERR_BADHANDLE", 10002: "NFS3ERR_NOT_SYNC", 10003: "NFS3ERR_BAD_COOKIE",
            10004: "NFS3ERR_NOTSUPP", 10005: "NFS3ERR_TOOSMALL", 10006: "NFS3ERR_SERVERFAULT",
            10007: "NFS3ERR_BADTYPE", 10008: "NFS3ERR_JUKEBOX"}
MOUNTSTAT3 = {0: "MNT3_OK", 1: "MNT3ERR_PERM", 2: "MNT3ERR_NOENT", 5: "MNT3ERR_IO",
              13: "MNT3ERR_ACCES", 20: "MNT3ERR_NOTDIR", 22: "MNT3ERR_INVAL",
              63: "MNT3ERR_NAMETOOLONG", 10004: "MNT3ERR_NOTSUPP", 10006: "MNT3ERR_SERVERFAULT"}
ACCEPT_STAT = ["SUCCESS", "PROG_UNAVAIL", "PROG_MISMATCH", "PROC_UNAVAIL", "GARBAGE_ARGS",
               "SYSTEM_ERR"]
REJECT_STAT = ["RPC_MISMATCH", "AUTH_ERROR"]
AUTH_STAT = ["AUTH_OK", "AUTH_BADCRED", "AUTH_REJECTEDCRED", "AUTH_BADVERF", "AUTH_REJECTEDVERF",
             "AUTH_TOOWEAK", "AUTH_INVALIDRESP", "AUTH_FAILED"]

# XIDs of calls made by tools/golden/rpc_handmade.py start with "hm".
HANDMADE_XID_PREFIX = 0x686D

# Well-known server ports in the capture and who listens there.
SERVER_PORTS = {2049: "knfsd", 20048: "rpc.mountd", 111: "rpcbind"}


def proc_name(prog, vers, proc):
    table = PROC_TABLES.get((prog, vers))
    if table and proc < len(table):
        return table[proc]
    return "NULL" if proc == 0 else f"PROC{proc}"


def prog_name(prog, vers):
    """portmap is program 100000 version 2; versions 3 and 4 of the same program are rpcbind."""
    if prog == 100000 and vers >= 3:
        return "rpcbind"
    return PROGRAMS.get(prog, "unknown")


def prog_label(prog, vers):
    """File name part: nfs3, mount3, portmap2, rpcbind4, nfsacl3, prog100099v1."""
    name = prog_name(prog, vers)
    return f"{name}{vers}" if name != "unknown" else f"prog{prog}v{vers}"


# ------------------------------------------------------------------------------------------------
# pcap reading and TCP reassembly (this script's own, independent of tshark's).

def read_pcap(path):
    """Yields (frame_number, timestamp, link_type, data) for each packet of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        sys.exit(f"{path}: not a classic pcap file (tcpdump -w writes one)")
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    link = struct.unpack(endian + "I", data[20:24])[0]
    off, n = 24, 0
    while off + 16 <= len(data):
        sec, frac, caplen, origlen = struct.unpack(endian + "IIII", data[off:off + 16])
        pkt = data[off + 16:off + 16 + caplen]
        if caplen < origlen:
            sys.exit(f"{path}: packet {n + 1} truncated by the snap length; capture with -s 0")
        n += 1
        yield n, sec + frac / (1e9 if nano else 1e6), link, pkt
        off += 16 + caplen


def tcp_segments(path):
    """Yields (frame, ts, src, sport, dst, dport, seq, flags, payload) for every TCP segment."""
    for frame, ts, link, pkt in read_pcap(path):
        if link == 1:  # Ethernet
            ethertype, off = struct.unpack(">H", pkt[12:14])[0], 14
            while ethertype == 0x8100:  # VLAN tag
                ethertype, off = struct.unpack(">H", pkt[off + 2:off + 4])[0], off + 4
        elif link == 113:  # Linux cooked v1
            ethertype, off = struct.unpack(">H", pkt[14:16])[0], 16
        else:
            sys.exit(f"unsupported pcap link type {link}")
        if ethertype == 0x0800:
            ihl = (pkt[off] & 0x0F) * 4
            total = struct.unpack(">H", pkt[off + 2:off + 4])[0]
            if pkt[off + 9] != 6:
                continue
            src, dst = ".".join(map(str, pkt[off + 12:off + 16])), ".".join(map(str, pkt[off + 16:off + 20]))
            tcp, end = off + ihl, off + total
        elif ethertype == 0x86DD:
            if pkt[off + 6] != 6:
                continue  # (extension headers do not occur on this loopback capture)
            plen = struct.unpack(">H", pkt[off + 4:off + 6])[0]
            src, dst = pkt[off + 8:off + 24].hex(), pkt[off + 24:off + 40].hex()
            tcp, end = off + 40, off + 40 + plen
        else:
            continue
        sport, dport, seq = struct.unpack(">HHI", pkt[tcp:tcp + 8])
        doff = (pkt[tcp + 12] >> 4) * 4
        flags = pkt[tcp + 13]
        yield frame, ts, src, sport, dst, dport, seq, flags, pkt[tcp + doff:end]


class Stream:
    """One direction of one TCP connection, reassembled by sequence number."""

    def __init__(self, key):
        self.key = key  # (src, sport, dst, dport)
        self.isn = None
        self.pieces = {}  # offset -> (bytes, frame, ts)

    def add(self, frame, ts, seq, flags, payload):
        if flags & 0x02:  # SYN
            self.isn = seq
            return
        if not payload:
            return
        if self.isn is None:
            sys.exit(f"{self.key}: data before SYN (start the capture before the traffic)")
        off = (seq - self.isn - 1) & 0xFFFFFFFF
        old = self.pieces.get(off)
        if old and old[0] != payload[:len(old[0])] and payload != old[0][:len(payload)]:
            sys.exit(f"{self.key}: retransmission with different bytes at offset {off}")
        if not old or len(payload) > len(old[0]):
            self.pieces[off] = (payload, frame, ts)

    def assemble(self):
        """Returns (bytes, [(offset, frame, ts)]) — the stream and where each piece came from."""
        buf, where = bytearray(), []
        for off in sorted(self.pieces):
            payload, frame, ts = self.pieces[off]
            if off > len(buf):
                sys.exit(f"{self.key}: {off - len(buf)} bytes missing at offset {len(buf)}")
            new = payload[len(buf) - off:]
            if new:
                where.append((len(buf), frame, ts))
                buf += new
        return bytes(buf), where


def frame_at(where, offset):
    """(frame, ts) of the segment that carried stream byte `offset`."""
    lo, hi = 0, len(where) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if where[mid][0] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return where[lo][1], where[lo][2]


def split_records(stream_key, data, where):
    """Splits a reassembled stream at record marks. Each record keeps its fragment headers."""
    records, off = [], 0
    while off < len(data):
        start, frags, payload, last = off, [], b"", False
        while not last:
            if off + 4 > len(data):
                sys.exit(f"{stream_key}: stream ends inside a record mark at {off}")
            mark = struct.unpack(">I", data[off:off + 4])[0]
            last, length = bool(mark >> 31), mark & 0x7FFFFFFF
            if off + 4 + length > len(data):
                sys.exit(f"{stream_key}: stream ends inside a {length}-byte fragment at {off}")
            payload += data[off + 4:off + 4 + length]
            frags.append(length)
            off += 4 + length
        first_frame, ts = frame_at(where, start)
        last_frame, _ = frame_at(where, off - 1)
        records.append({"raw": data[start:off], "payload": payload, "fragments": frags,
                        "frame": first_frame, "last_frame": last_frame, "ts": ts,
                        "stream": stream_key})
    return records


def parse_rpc(rec):
    """Own parse of the RPC header: fills xid, direction and the call/reply header fields."""
    p = rec["payload"]
    u32 = lambda o: struct.unpack(">I", p[o:o + 4])[0]
    rec["xid"], mtype = u32(0), u32(4)
    if mtype == 0:
        rec["direction"] = "call"
        rec["rpcvers"], rec["prog"], rec["vers"], rec["proc"] = u32(8), u32(12), u32(16), u32(20)
        rec["cred_flavor"], clen = u32(24), u32(28)
        rec["cred_body"] = p[32:32 + clen]
        voff = 32 + ((clen + 3) & ~3)
        vlen = u32(voff + 4)
        rec["body_offset"] = voff + 8 + ((vlen + 3) & ~3)
        rec["handmade"] = (rec["xid"] >> 16) == HANDMADE_XID_PREFIX
    elif mtype == 1:
        rec["direction"] = "reply"
        rec["reply_stat"] = u32(8)
        if rec["reply_stat"] == 0:  # MSG_ACCEPTED: verifier, accept_stat
            vlen = u32(16)
            aoff = 20 + ((vlen + 3) & ~3)
            rec["accept_stat"] = u32(aoff)
            rec["body_offset"] = aoff + 4
        else:  # MSG_DENIED: reject_stat, then mismatch_info or auth_stat
            rec["reject_stat"] = u32(12)
            if rec["reject_stat"] == 1:
                rec["auth_stat"] = u32(16)
            rec["body_offset"] = len(p)
    else:
        sys.exit(f"{rec['stream']}: record with message type {mtype}")


def status_label(reply, call):
    """A readable status for a reply, from this script's own parse."""
    if reply["reply_stat"] != 0:
        rej = REJECT_STAT[reply["reject_stat"]] if reply["reject_stat"] < 2 else str(reply["reject_stat"])
        if "auth_stat" in reply:
            rej += "/" + (AUTH_STAT[reply["auth_stat"]] if reply["auth_stat"] < len(AUTH_STAT)
                          else str(reply["auth_stat"]))
        return "MSG_DENIED/" + rej
    acc = reply["accept_stat"]
    if acc != 0:
        return ACCEPT_STAT[acc] if acc < len(ACCEPT_STAT) else str(acc)
    body = reply["payload"][reply["body_offset"]:]
    prog, vers, proc = call["prog"], call["vers"], call["proc"]
    if prog == 100003 and vers == 3 and proc != 0 and len(body) >= 4:
        st = struct.unpack(">I", body[:4])[0]
        return NFSSTAT3.get(st, f"nfsstat3={st}")
    if prog == 100227 and proc != 0 and len(body) >= 4:
        st = struct.unpack(">I", body[:4])[0]
        return NFSSTAT3.get(st, f"nfsstat3={st}")
    if prog == 100005 and proc == 1 and len(body) >= 4:
        st = struct.unpack(">I", body[:4])[0]
        return MOUNTSTAT3.get(st, f"mountstat3={st}")
    return "SUCCESS"


# ------------------------------------------------------------------------------------------------
# tshark as the oracle: PDML of the whole capture, one entry per RPC message it dissected.

LOWER_PROTOS = ("geninfo", "frame", "eth", "ip", "ipv6", "tcp", "udp")


def pdml_packets(pcap, extra_args=()):
    """Yields (packet info, [(protocol name, fields)]) per packet of tshark's PDML output, the
    protocols above the transport in order. Packet info: frame number, addresses and ports."""
    cmd = ["tshark", "-n", "-r", pcap, "-T", "pdml"] + list(extra_args)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    for _, pkt in ET.iterparse(proc.stdout):
        if pkt.tag != "packet":
            continue
        info, protos = {}, []
        for p in pkt:
            name = p.get("name")
            if name in LOWER_PROTOS:
                for f in p.iter("field"):
                    if f.get("name") in ("ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "tcp.srcport",
                                         "tcp.dstport", "num"):
                        info.setdefault(f.get("name"), f.get("show"))
            else:
                protos.append((name, flatten(p)))
        info["src"] = info.get("ip.src") or info.get("ipv6.src")
        info["dst"] = info.get("ip.dst") or info.get("ipv6.dst")
        info["frame"] = int(info["num"])
        yield info, protos
        pkt.clear()
    if proc.wait() != 0:
        sys.exit("tshark failed")


def rpc_messages(protos):
    """Groups a packet's protocols into RPC messages: each 'rpc' with the protocols that follow it.
    Yields {fields, malformed, protos}; bare fragments (no xid yet) are skipped."""
    cur = None
    for name, fields in protos:
        if name == "rpc":
            if cur:
                yield cur
            cur = None
            if first(fields, "rpc.xid") is not None:
                cur = {"fields": list(fields), "malformed": False, "protos": ["rpc"]}
        elif cur is not None:
            cur["protos"].append(name)
            cur["malformed"] |= name == "_ws.malformed"
            cur["fields"].extend(fields)
    if cur:
        yield cur


def tshark_messages(pcap):
    """Maps (src, sport, dst, dport, xid, msgtype) -> list of {fields, malformed, frame}."""
    # Clients bind reserved ports, some of which tshark would otherwise hand to another dissector
    # (995 is POP3S, 705 AgentX): decode the servers' ports as RPC, whatever the other end.
    args = ["-o", "rpc.desegment_rpc_over_tcp:TRUE", "-o", "rpc.defragment_rpc_over_tcp:TRUE",
            "-o", "tcp.desegment_tcp_streams:TRUE"]
    for port in SERVER_PORTS:
        args += ["-d", f"tcp.port=={port},rpc"]
    out = collections.defaultdict(list)
    for info, protos in pdml_packets(pcap, args):
        for m in rpc_messages(protos):
            m["frame"] = info["frame"]
            key = (info["src"], int(info["tcp.srcport"]), info["dst"], int(info["tcp.dstport"]),
                   int(first(m["fields"], "rpc.xid"), 16), int(first(m["fields"], "rpc.msgtyp")))
            out[key].append(m)
    return out


def flatten(el, labels=()):
    """[(field name, show, labels of enclosing unnamed subtrees)] in document order."""
    res = []
    for f in el:
        if f.tag != "field":
            continue
        name, show = f.get("name"), f.get("show")
        if name:
            res.append((name, show, labels))
            res.extend(flatten(f, labels))
        else:
            res.extend(flatten(f, labels + (show or "",)))
    return res


def first(fields, name):
    for n, v, _ in fields:
        if n == name:
            return v
    return None


def conv(v, how):
    if v is None:
        return None
    if how == "int":
        return int(v, 16) if v.startswith("0x") else int(v)
    if how == "bool":
        return v in ("1", "True", "true")
    return v


# Oracle keys: (key, tshark field, "first"|"all"|"count", conversion, optional label filter).
# Label filters pick fields by the unnamed subtree tshark put them under ("Credentials", ...).
RPC_CALL_FIELDS = [
    ("rpc_version", "rpc.version", "first", "int"),
    ("program", "rpc.program", "first", "int"),
    ("program_version", "rpc.programversion", "first", "int"),
    ("procedure", "rpc.procedure", "first", "int"),
    ("cred_flavor", "rpc.auth.flavor", "first", "int", "Credentials"),
    ("cred_stamp", "rpc.auth.stamp", "first", "int", "Credentials"),
    ("cred_machinename", "rpc.auth.machinename", "first", "str", "Credentials"),
    ("cred_uid", "rpc.auth.uid", "first", "int", "Credentials"),
    ("cred_gid", "rpc.auth.gid", "first", "int", "Credentials"),
    ("cred_aux_gids", "rpc.auth.gid", "aux", "int", "Credentials"),
    ("verf_flavor", "rpc.auth.flavor", "first", "int", "Verifier"),
]
RPC_REPLY_FIELDS = [
    ("reply_stat", "rpc.replystat", "first", "int"),
    ("accept_stat", "rpc.state_accept", "first", "int"),
    ("reject_stat", "rpc.state_reject", "first", "int"),
    ("auth_stat", "rpc.state_auth", "first", "int"),
    ("mismatch_low", "rpc.programversion.min", "first", "int"),
    ("mismatch_high", "rpc.programversion.max", "first", "int"),
    ("rpc_mismatch_low", "rpc.version.min", "first", "int"),
    ("rpc_mismatch_high", "rpc.version.max", "first", "int"),
    ("verf_flavor", "rpc.auth.flavor", "first", "int", "Verifier"),
]
RPC_COMMON_FIELDS = [
    ("xid", "rpc.xid", "first", "int"),
    ("fragment_count", "rpc.fragment.count", "first", "int"),
    ("reassembled_length", "rpc.reassembled.length", "first", "int"),
]
NFS_CALL_FIELDS = [
    ("fh_length", "nfs.fh.length", "all", "int"),
    ("name", "nfs.name", "all", "str"),
    ("offset", "nfs.offset3", "first", "int"),
    ("count", "nfs.count3", "first", "int"),
    ("stable", "nfs.write.stable", "first", "int"),
    ("data_length", "nfs.data", "bytes", None),
    ("createmode", "nfs.createmode", "first", "int"),
    ("verifier", "nfs.verifier", "first", "str"),
    ("cookie", "nfs.cookie3", "first", "int"),
    ("dircount", "nfs.count3_dircount", "first", "int"),
    ("maxcount", "nfs.count3_maxcount", "first", "int"),
    ("access", "nfs.access_check", "first", "int"),
    ("symlink_to", "nfs.symlink.to", "first", "str"),
    ("mknod_type", "nfs.type", "first", "int"),
    ("sattr_set_it", "nfs.set_it", "all", "int"),
    ("sattr_mode", "nfs.mode3", "first", "int"),
    ("sattr_uid", "nfs.uid3", "first", "int"),
    ("sattr_gid", "nfs.gid3", "first", "int"),
    ("sattr_size", "nfs.set_size", "first", "int"),
    ("sattr_time_sec", "nfs.atime.sec", "all", "int"),
    ("sattrguard_check", "nfs.sattrguard3", "first", "int"),
    ("spec_major", "nfs.specdata1", "first", "int"),
    ("spec_minor", "nfs.specdata2", "first", "int"),
]
NFS_REPLY_FIELDS = [
    ("status", "nfs.status3", "first", "int"),
    ("fh_length", "nfs.fh.length", "all", "int"),
    ("attributes_follow", "nfs.attributes_follow", "all", "int"),
    ("attr_type", "nfs.fattr3.type", "all", "int"),
    ("attr_mode", "nfs.mode3", "all", "int"),
    ("attr_nlink", "nfs.fattr3.nlink", "all", "int"),
    ("attr_uid", "nfs.fattr3.uid", "all", "int"),
    ("attr_gid", "nfs.fattr3.gid", "all", "int"),
    ("attr_size", "nfs.fattr3.size", "all", "int"),
    ("attr_fileid", "nfs.fattr3.fileid", "all", "int"),
    ("wcc_before_size", "nfs.wcc_attr.size", "all", "int"),
    ("count", "nfs.count3", "first", "int"),
    ("eof", "nfs.read.eof", "first", "bool"),
    ("data_length", "nfs.data", "bytes", None),
    ("committed", "nfs.write.committed", "first", "int"),
    ("verifier", "nfs.verifier", "first", "str"),
    ("access_rights", "nfs.access_rights", "first", "int"),
    ("readlink_data", "nfs.readlink.data", "first", "str"),
    ("dir_eof", "nfs.readdir.eof", "first", "int"),
    ("entry_names", "nfs.readdir.entry3.name", "all", "str"),
    ("entry_cookies", "nfs.readdir.entry3.cookie", "all", "int"),
    ("entry_fileids", "nfs.readdir.entry3.fileid", "all", "int"),
    ("entryplus_names", "nfs.readdirplus.entry.name", "all", "str"),
    ("entryplus_cookies", "nfs.readdirplus.entry.cookie", "all", "int"),
    ("entryplus_fileids", "nfs.readdirplus.entry.fileid", "all", "int"),
    ("fsstat_tbytes", "nfs.fsstat3_resok.tbytes", "first", "int"),
    ("fsstat_fbytes", "nfs.fsstat3_resok.fbytes", "first", "int"),
    ("fsstat_abytes", "nfs.fsstat3_resok.abytes", "first", "int"),
    ("fsstat_tfiles", "nfs.fsstat3_resok.tfiles", "first", "int"),
    ("fsstat_ffiles", "nfs.fsstat3_resok.ffiles", "first", "int"),
    ("fsstat_afiles", "nfs.fsstat3_resok.afiles", "first", "int"),
    ("fsstat_invarsec", "nfs.fsstat.invarsec", "first", "int"),
    ("fsinfo_rtmax", "nfs.fsinfo.rtmax", "first", "int"),
    ("fsinfo_rtpref", "nfs.fsinfo.rtpref", "first", "int"),
    ("fsinfo_rtmult", "nfs.fsinfo.rtmult", "first", "int"),
    ("fsinfo_wtmax", "nfs.fsinfo.wtmax", "first", "int"),
    ("fsinfo_wtpref", "nfs.fsinfo.wtpref", "first", "int"),
    ("fsinfo_wtmult", "nfs.fsinfo.wtmult", "first", "int"),
    ("fsinfo_dtpref", "nfs.fsinfo.dtpref", "first", "int"),
    ("fsinfo_maxfilesize", "nfs.fsinfo.maxfilesize", "first", "int"),
    ("fsinfo_properties", "nfs.fsinfo.properties", "first", "int"),
    ("pathconf_linkmax", "nfs.pathconf.linkmax", "first", "int"),
    ("pathconf_name_max", "nfs.pathconf.name_max", "first", "int"),
    ("pathconf_no_trunc", "nfs.pathconf.no_trunc", "first", "bool"),
    ("pathconf_chown_restricted", "nfs.pathconf.chown_restricted", "first", "bool"),
    ("pathconf_case_insensitive", "nfs.pathconf.case_insensitive", "first", "bool"),
    ("pathconf_case_preserving", "nfs.pathconf.case_preserving", "first", "bool"),
]
MOUNT_CALL_FIELDS = [("path", "mount.path", "first", "str")]
MOUNT_REPLY_FIELDS = [
    ("mount_status", "mount.status", "first", "int"),
    ("fh_length", "nfs.fh.length", "first", "int"),
    ("auth_flavors", "mount.flavor", "all", "int"),
    ("dump_hostnames", "mount.dump.hostname", "all", "str"),
    ("dump_directories", "mount.dump.directory", "all", "str"),
    ("export_count", "mount.export.directory", "count", None),
    ("export_first", "mount.export.directory", "first", "str"),
    ("export_last", "mount.export.directory", "last", "str"),
    ("export_first_groups", "mount.export.group", "first", "str"),
]
PORTMAP_FIELDS = [  # both directions: GETPORT/SET arguments, DUMP results, rpcbind v3/v4 rpcb
    ("pmap_prog", "portmap.prog", "all", "int"),
    ("pmap_vers", "portmap.version", "all", "int"),
    ("pmap_proto", "portmap.proto", "all", "int"),
    ("pmap_port", "portmap.port", "all", "int"),
    ("rpcb_prog", "portmap.rpcb.prog", "all", "int"),
    ("rpcb_vers", "portmap.rpcb.version", "all", "int"),
    ("rpcb_netid", "portmap.rpcb.netid", "all", "str"),
    ("rpcb_addr", "portmap.rpcb.addr", "all", "str"),
    ("rpcb_owner", "portmap.rpcb.owner", "all", "str"),
    ("uaddr", "portmap.uaddr", "first", "str"),
]
NFSACL_CALL_FIELDS = [("fh_length", "nfs.fh.length", "all", "int"), ("acl_mask", "nfsacl.mask", "first", "int")]
NFSACL_REPLY_FIELDS = [
    ("status", "nfs.status", "first", "int"),
    ("acl_mask", "nfsacl.mask", "first", "int"),
    ("acl_count", "nfsacl.aclcnt", "first", "int"),
    ("default_acl_count", "nfsacl.dfaclcnt", "first", "int"),
]


def oracle(fields, direction, prog):
    """The tshark dict of one message: only keys whose tshark field is present."""
    specs = list(RPC_COMMON_FIELDS) + (RPC_CALL_FIELDS if direction == "call" else RPC_REPLY_FIELDS)
    specs += {
        (100003, "call"): NFS_CALL_FIELDS, (100003, "reply"): NFS_REPLY_FIELDS,
        (100005, "call"): MOUNT_CALL_FIELDS, (100005, "reply"): MOUNT_REPLY_FIELDS,
        (100000, "call"): PORTMAP_FIELDS, (100000, "reply"): PORTMAP_FIELDS,
        (100227, "call"): NFSACL_CALL_FIELDS, (100227, "reply"): NFSACL_REPLY_FIELDS,
    }.get((prog, direction), [])
    out = {}
    for spec in specs:
        key, tf, mode, how = spec[:4]
        label = spec[4] if len(spec) > 4 else None
        vals = [v for n, v, labels in fields if n == tf and (label is None or label in labels)]
        if not vals:
            continue
        if mode == "first":
            out[key] = conv(vals[0], how)
        elif mode == "last":
            out[key] = conv(vals[-1], how)
        elif mode == "all":
            out[key] = [conv(v, how) for v in vals]
        elif mode == "aux":  # AUTH_SYS: the first gid is the primary one, the rest are auxiliary
            out[key] = [conv(v, how) for v in vals[1:]]
        elif mode == "count":
            out[key] = len(vals)
        elif mode == "bytes":  # opaque data: tshark shows it as aa:bb:..., report its length
            out[key] = len(vals[0].split(":")) if vals[0] else 0
    return out


def field_sources():
    """key -> tshark field, for the README and meta.json."""
    groups = {"rpc (all)": RPC_COMMON_FIELDS, "rpc call": RPC_CALL_FIELDS,
              "rpc reply": RPC_REPLY_FIELDS, "nfs call": NFS_CALL_FIELDS,
              "nfs reply": NFS_REPLY_FIELDS, "mount call": MOUNT_CALL_FIELDS,
              "mount reply": MOUNT_REPLY_FIELDS, "portmap/rpcbind": PORTMAP_FIELDS,
              "nfsacl call": NFSACL_CALL_FIELDS, "nfsacl reply": NFSACL_REPLY_FIELDS}
    res = {}
    for g, specs in groups.items():
        res[g] = {}
        for spec in specs:
            key, tf, mode = spec[:3]
            desc = tf
            if len(spec) > 4:
                desc += f" (under '{spec[4]}')"
            if mode != "first":
                desc += f" [{mode}]"
            res[g][key] = desc
    return res


# ------------------------------------------------------------------------------------------------
# Who sent what: server by port, client by the capture step and connection.

def load_steps(log):
    steps = []
    if os.path.exists(log):
        for line in open(log, encoding="utf-8", errors="replace"):
            m = re.match(r"^(\d+\.\d+) == (.*)$", line.rstrip("\n"))
            if m:
                steps.append((float(m.group(1)), m.group(2)))
    return steps


def step_at(steps, ts):
    cur = None
    for t, cmd in steps:
        if t <= ts:
            cur = cmd
        else:
            break
    return cur


def client_peer(call, step, kernel_conns):
    if call["handmade"]:
        return "tools/golden/rpc_handmade.py"
    conn = call["stream"]
    if conn in kernel_conns:
        return "Linux kernel NFS client"
    tool = os.path.basename((step or "").split(" ")[0])
    return {"mount": "mount.nfs (nfs-utils)", "umount": "umount.nfs (nfs-utils)",
            "showmount": "showmount (nfs-utils)", "rpcinfo": "rpcinfo (rpcbind)",
            "nfs-ls": "libnfs", "nfs-cp": "libnfs", "nfs-cat": "libnfs"}.get(tool, tool or "unknown")


# ------------------------------------------------------------------------------------------------
# Choosing a small but complete set: one exchange per distinct kind.

def size_class(n):
    return "small" if n <= 8192 + 512 else "medium" if n <= 131072 else "large"


def exchange_kind(call, reply):
    t, r = call["tshark"], reply["tshark"]
    k = [call["prog"], call["vers"], call["proc"], call["rpcvers"], call["handmade"], call["peer"],
         call["cred_flavor"], t.get("cred_uid", 0) == 0, reply["status"],
         size_class(len(call["raw"])), size_class(len(reply["raw"])), len(reply["fragments"]) > 1]
    if call["prog"] == 100003:
        k += [t.get("stable"), t.get("createmode"), t.get("mknod_type"), t.get("cookie", 0) != 0,
              tuple(t.get("sattr_set_it", ())), len(t.get("fh_length", ())),
              r.get("eof"), r.get("dir_eof")]
    if call["prog"] == 100005:
        k += [bool(r.get("dump_hostnames"))]
    if call["prog"] == 100000:
        k += [tuple(t.get("pmap_prog", ()))[:1], tuple(t.get("rpcb_prog", ()))[:1]]
    return tuple(k)


# ------------------------------------------------------------------------------------------------

def pair_records(records, who):
    """Calls and replies matched by connection and xid, in order (a retransmitted call and the reply it
    gets pair up); each reply takes its call's prog, vers and proc. Records without a partner are
    reported on stderr (naming the script `who`) and left out."""
    calls = collections.defaultdict(list)
    for rec in records:
        if rec["direction"] == "call":
            calls[(rec["stream"], rec["xid"])].append(rec)
    pairs, orphans = [], []
    for rec in records:
        if rec["direction"] != "reply":
            continue
        s = rec["stream"]
        waiting = calls.get(((s[2], s[3], s[0], s[1], s[4]), rec["xid"]))
        call = waiting.pop(0) if waiting else None
        if call is None:
            orphans.append(rec)
            continue
        for k in ("prog", "vers", "proc"):
            rec[k] = call[k]
        pairs.append((call, rec))
    orphans += [c for waiting in calls.values() for c in waiting]
    if orphans:
        print(f"{who}: {len(orphans)} records without a partner (ignored):", file=sys.stderr)
        for o in orphans[:10]:
            print(f"  frame {o['frame']} {o['direction']} xid {o['xid']:#x} {o['stream']}", file=sys.stderr)
    return pairs


def extract_tcp(pcap, out, steps, info):
    """RPC over TCP: records, index.json and meta.json. Returns (index, meta)."""

    # 1. Streams and records, by this script alone. A connection is numbered at its first SYN, so a
    # 4-tuple reused by a later connection (TIME_WAIT reuse) starts a new pair of streams.
    streams, conn_of, nconn = {}, {}, 0
    for frame, ts, src, sport, dst, dport, seq, flags, payload in tcp_segments(pcap):
        tup = (src, sport, dst, dport)
        if flags & 0x12 == 0x02:  # SYN without ACK: a new connection from this client
            nconn += 1
            conn_of[tup] = conn_of[(dst, dport, src, sport)] = nconn
        conn = conn_of.get(tup)
        if conn is None:
            sys.exit(f"{tup}: traffic before the SYN (start the capture before the traffic)")
        key = tup + (conn,)
        streams.setdefault(key, Stream(key)).add(frame, ts, seq, flags, payload)
    records = []
    for key, st in streams.items():
        data, where = st.assemble()
        if data:
            records += split_records(key, data, where)
    for rec in records:
        parse_rpc(rec)
    records.sort(key=lambda r: (r["frame"], r["stream"]))

    # 2. Calls and replies, matched by connection and xid (a retransmitted call and the reply it gets
    # pair up in order).
    pairs = pair_records(records, "extract")
    for _, reply in pairs:
        reply["handmade"] = False

    # 3. The oracle.
    ts_msgs = tshark_messages(pcap)
    taken = collections.Counter()
    for call, reply in pairs:
        for rec in (call, reply):
            s = rec["stream"]
            key = (s[0], s[1], s[2], s[3], rec["xid"], 0 if rec["direction"] == "call" else 1)
            lst = ts_msgs.get(key, [])
            i = taken[key]
            taken[key] += 1
            m = lst[i] if i < len(lst) else None
            rec["tshark_dissected"] = m is not None
            rec["tshark_malformed"] = bool(m and m["malformed"])
            rec["tshark_frame"] = m["frame"] if m else None
            rec["tshark"] = oracle(m["fields"], rec["direction"], call["prog"]) if m else {}

    # 4. Peers and steps.
    kernel_conns = set()
    for call, _ in pairs:
        if call["prog"] in (100003, 100227) and call["proc"] != 0 and not call["handmade"] \
                and not (step_at(steps, call["ts"]) or "").startswith("nfs-"):
            kernel_conns.add(call["stream"])
    kver = info.get("kernel", "")
    server_names = {2049: f"knfsd (Linux {kver})".replace(" ()", ""),
                    20048: "rpc.mountd (nfs-utils)", 111: "rpcbind"}
    for call, reply in pairs:
        call["step"] = step_at(steps, call["ts"])
        call["peer"] = client_peer(call, call["step"], kernel_conns)
        reply["peer"] = server_names.get(reply["stream"][1], f"server port {reply['stream'][1]}")
        reply["status"] = status_label(reply, call)

    # 5. One exchange per kind.
    chosen, seen = [], set()
    for call, reply in pairs:
        kind = exchange_kind(call, reply)
        if kind in seen:
            continue
        seen.add(kind)
        chosen.append((call, reply))

    # 6. Files and index.
    rec_dir = os.path.join(out, "records")
    if os.path.isdir(rec_dir):
        shutil.rmtree(rec_dir)
    os.makedirs(rec_dir)
    index, n = [], 0
    for call, reply in chosen:
        names = {}
        for rec in (call, reply):
            n += 1
            names[rec["direction"]] = "%04d-%s-%s-%s.bin" % (
                n, prog_label(call["prog"], call["vers"]), proc_name(call["prog"], call["vers"], call["proc"]),
                rec["direction"])
            with open(os.path.join(rec_dir, names[rec["direction"]]), "wb") as f:
                f.write(rec["raw"])
        for rec in (call, reply):
            s = rec["stream"]
            entry = {
                "file": "records/" + names[rec["direction"]],
                "direction": rec["direction"],
                "xid": rec["xid"],
                "prog": call["prog"],
                "prog_name": prog_name(call["prog"], call["vers"]),
                "vers": call["vers"],
                "proc": call["proc"],
                "proc_name": proc_name(call["prog"], call["vers"], call["proc"]),
                "fragments": len(rec["fragments"]),
                "fragment_lengths": rec["fragments"],
                "length": len(rec["raw"]),
                "handmade": rec["handmade"],
                "peer": rec["peer"],
                "connection": f"{s[0]}:{s[1]} > {s[2]}:{s[3]}",
                "frame": rec["frame"],
                "pair": "records/" + names["reply" if rec["direction"] == "call" else "call"],
                "step": call["step"],
            }
            if rec["direction"] == "call":
                entry["rpcvers"] = rec["rpcvers"]
                entry["cred_flavor"] = rec["cred_flavor"]
            else:
                entry["in_reply_to_handmade"] = call["handmade"]
                entry["status"] = rec["status"]
            entry["tshark_dissected"] = rec["tshark_dissected"]
            entry["tshark_malformed"] = rec["tshark_malformed"]
            entry["tshark"] = rec["tshark"]
            index.append(entry)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")

    meta = {"pcap": os.path.basename(pcap), "capture": info, "tshark": tshark_version(),
            "records": len(index), "exchanges_in_capture": len(pairs),
            "field_sources": field_sources()}
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(rec_dir, x)) for x in os.listdir(rec_dir))
    print(f"extract: {pcap}: {len(pairs)} exchanges, kept {len(chosen)} "
          f"({len(index)} records, {total} bytes) in {rec_dir}")
    bad = [e["file"] for e in index if e["tshark_malformed"] and not (e["handmade"] or e.get("in_reply_to_handmade"))]
    if bad:
        print("extract: tshark flags real-peer records as malformed: " + ", ".join(bad), file=sys.stderr)
    return index, meta


def tshark_version():
    out = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout
    return out.split("\n")[0].rstrip(".")


SHORT_PEER = {"Linux kernel NFS client": None, "tools/golden/rpc_handmade.py": None,
              "mount.nfs (nfs-utils)": "mount.nfs", "umount.nfs (nfs-utils)": "umount.nfs",
              "showmount (nfs-utils)": "showmount", "rpcinfo (rpcbind)": "rpcinfo", "libnfs": "libnfs"}
STABLE = ["UNSTABLE", "DATA_SYNC", "FILE_SYNC"]
CREATEMODE = ["UNCHECKED", "GUARDED", "EXCLUSIVE"]
FTYPE3 = [None, "REG", "DIR", "BLK", "CHR", "LNK", "SOCK", "FIFO"]
SATTR = ["mode", "uid", "gid", "size", "atime", "mtime"]


def call_note(e):
    """A few words on what makes this call different from the others of its procedure."""
    t, notes = e["tshark"], []
    if e["prog"] == 100003:
        if "stable" in t:
            notes.append(STABLE[t["stable"]] if t["stable"] < 3 else str(t["stable"]))
        if "createmode" in t:
            notes.append(CREATEMODE[t["createmode"]] if t["createmode"] < 3 else str(t["createmode"]))
        if "mknod_type" in t and t["mknod_type"] < len(FTYPE3):
            notes.append(FTYPE3[t["mknod_type"]])
        if e["proc"] == 2 and "sattr_set_it" in t:
            how = {1: "=server", 2: "=client"}
            notes.append("+".join(SATTR[i] + (how.get(v, "") if i >= 4 else "")
                                  for i, v in enumerate(t["sattr_set_it"]) if v))
        if t.get("cookie"):
            notes.append("cookie>0")
        if t.get("count", 0) >= 1 << 20 or t.get("data_length", 0) >= 1 << 20:
            notes.append("1 MiB")
    if t.get("cred_uid", 0) != 0:
        notes.append(f"uid {t['cred_uid']}")
    if SHORT_PEER.get(e["peer"], e["peer"]):
        notes.append(SHORT_PEER.get(e["peer"], e["peer"]))
    return f" ({', '.join(notes)})" if notes else ""


def reply_note(e):
    t, notes = e["tshark"], []
    if e["fragments"] > 1:
        notes.append(f"{e['fragments']} fragments")
    if e["length"] >= 1 << 20:
        notes.append("1 MiB")
    if e["prog"] == 100005 and e["proc"] == 2:
        notes.append(f"{len(t.get('dump_hostnames', []))} entries")
    return f" ({', '.join(notes)})" if notes else ""


def coverage_table(index):
    """Markdown: program, procedure -> call and reply files with statuses."""
    rows = collections.OrderedDict()
    for e in index:
        key = (e["prog"], e["vers"], e["proc"])
        row = rows.setdefault(key, {"calls": [], "replies": []})
        tag = os.path.basename(e["file"])[:4]
        if e["direction"] == "call":
            row["calls"].append(tag + ("ʰ" if e["handmade"] else "") + call_note(e))
        else:
            row["replies"].append(f"{tag} {e['status']}{reply_note(e)}")
    order = {100003: 0, 100005: 1, 100000: 2, 100227: 3}
    lines = ["| program | procedure | calls | replies (status) |", "|---|---|---|---|"]
    for (prog, vers, proc) in sorted(rows, key=lambda k: (order.get(k[0], 9), k[0], k[1], k[2])):
        r = rows[(prog, vers, proc)]
        lines.append(f"| {prog_label(prog, vers)} | {proc} {proc_name(prog, vers, proc)} | "
                     f"{'; '.join(r['calls'])} | {'; '.join(r['replies'])} |")
    return "\n".join(lines)


def update_readme(path, section, text, script="extract.py", strict=False):
    """Replaces the generated section `section` of the README with `text` (markers naming `script`); a
    README without the section is left alone, or with `strict` is an error."""
    if not os.path.exists(path):
        return
    doc = open(path, encoding="utf-8").read()
    begin, end = f"<!-- {section}:begin (generated by {script}) -->", f"<!-- {section}:end -->"
    if begin not in doc or end not in doc:
        if strict:
            sys.exit(f"{script}: {path} has no {section} section")
        return
    doc = doc[:doc.index(begin)] + f"{begin}\n{text}\n{end}" + doc[doc.index(end) + len(end):]
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc)


# ------------------------------------------------------------------------------------------------
# RPC over RDMA (RoCEv2 capture): one file per SEND message, i.e. transport header + inline RPC.

RPCRDMA_FIELDS = [  # key, tshark field, mode, conversion
    ("xid", "rpcordma.xid", "first", "int"),
    ("vers", "rpcordma.version", "first", "int"),
    ("credits", "rpcordma.flow_control", "first", "int"),
    ("proc", "rpcordma.msg_type", "first", "int"),
    ("read_list_count", "rpcordma.reads_count", "first", "int"),
    ("write_list_count", "rpcordma.writes_count", "first", "int"),
    ("reply_chunk_count", "rpcordma.reply_count", "first", "int"),
    ("positions", "rpcordma.position", "all", "int"),
    ("segment_counts", "rpcordma.segment_count", "all", "int"),
    ("handles", "rpcordma.rdma_handle", "all", "int"),
    ("lengths", "rpcordma.rdma_length", "all", "int"),
    ("offsets", "rpcordma.rdma_offset", "all", "int"),
    ("errcode", "rpcordma.errcode", "first", "int"),
    ("vers_low", "rpcordma.vers_low", "first", "int"),
    ("vers_high", "rpcordma.vers_high", "first", "int"),
    ("rpc_xid", "rpc.xid", "first", "int"),
    ("rpc_msgtyp", "rpc.msgtyp", "first", "int"),
    ("rpc_program", "rpc.program", "first", "int"),
    ("rpc_version", "rpc.programversion", "first", "int"),
    ("rpc_procedure", "rpc.procedure", "first", "int"),
    ("rpc_accept_stat", "rpc.state_accept", "first", "int"),
    ("nfs_status", "nfs.status3", "first", "int"),
]


def pick(fields, specs):
    out = {}
    for key, tf, mode, how in specs:
        vals = [v for n, v, _ in fields if n == tf]
        if vals:
            out[key] = conv(vals[0], how) if mode == "first" else [conv(v, how) for v in vals]
    return out


def extract_rdma(pcap, out, steps):
    """RPC-over-RDMA SEND messages and RDMA-CM private data: rpcrdma/ files and rpcrdma/index.json."""
    packets = list(rdma.roce_packets(read_pcap(pcap)))
    cm = list(rdma.cm_private_data(packets))
    servers = {dst for _, _, dst, name, _ in cm if name == "REQ"}
    msgs = rdma.send_messages(packets)

    # tshark: the rpcordma header (and inline RPC) dissected in the frame of each SEND's last packet;
    # RPC calls it reassembled from read chunks (RDMA_NOMSG), by xid.
    by_frame, call_ids = {}, {}
    for info, protos in pdml_packets(pcap):
        fields = [f for name, fl in protos for f in fl]
        names = [name for name, _ in protos]
        if "rpcordma" in names:
            by_frame[info["frame"]] = {"fields": fields, "malformed": "_ws.malformed" in names}
        for m in rpc_messages(protos):
            if first(m["fields"], "rpc.msgtyp") == "0" and first(m["fields"], "rpc.program"):
                call_ids.setdefault(int(first(m["fields"], "rpc.xid"), 16), tuple(
                    int(first(m["fields"], k)) for k in ("rpc.program", "rpc.programversion", "rpc.procedure")))

    for m in msgs:
        m["hdr"] = rdma.parse_rpcrdma(m["payload"])
        m["direction"] = "call" if m["dst"] in servers else "reply"
        m["xid"] = m["hdr"]["xid"]
        m["inline"] = None
        if m["hdr"]["proc"] == 0:  # RDMA_MSG: the RPC message follows the header
            rec = {"payload": m["payload"][m["hdr"]["header_length"]:], "stream": (m["src"], m["dst"])}
            parse_rpc(rec)
            m["inline"] = rec
        t = by_frame.get(m["frames"][-1])
        m["tshark"] = pick(t["fields"], RPCRDMA_FIELDS) if t else {}
        m["tshark_malformed"] = bool(t and t["malformed"])

    # Calls and replies by xid (a retransmitted call and its reply pair up in order).
    pending, pairs = collections.defaultdict(list), []
    for m in msgs:
        if m["direction"] == "call":
            if m["inline"]:
                m["rpc"], m["rpc_from"] = (m["inline"]["prog"], m["inline"]["vers"], m["inline"]["proc"]), "inline"
            elif m["xid"] in call_ids:
                m["rpc"], m["rpc_from"] = call_ids[m["xid"]], "tshark (read chunk)"
            else:
                m["rpc"], m["rpc_from"] = (0, 0, 0), "unknown"
            pending[m["xid"]].append(m)
        elif pending.get(m["xid"]):
            call = pending[m["xid"]].pop(0)
            m["rpc"], m["rpc_from"] = call["rpc"], "call"
            if m["inline"]:
                c = {"prog": call["rpc"][0], "vers": call["rpc"][1], "proc": call["rpc"][2]}
                m["status"] = status_label(m["inline"], c)
            else:
                m["status"] = "(in the reply chunk)"
            pairs.append((call, m))

    def shape(m):
        h = m["hdr"]
        reads = h.get("read_list") or []
        return (m["direction"], h["proc"], m["opcode"], bool(reads), any(r["position"] == 0 for r in reads),
                len(h.get("write_list") or []), h.get("reply_chunk") is not None)

    chosen, seen = [], set()
    for call, reply in pairs:
        kind = (call["rpc"], shape(call), shape(reply), reply.get("status"))
        if kind not in seen:
            seen.add(kind)
            chosen.append((call, reply))

    rdir = os.path.join(out, "rpcrdma")
    if os.path.isdir(rdir):
        shutil.rmtree(rdir)
    os.makedirs(rdir)
    index, n = [], 0

    # RFC 8797 private data of the first connection: client (REQ) and server (REP).
    tsk = {}
    for info, protos in pdml_packets(pcap, ["-Y", "infiniband.cm.req.ip_cm.private || infiniband.cm.rep.private"]):
        fields = [f for _, fl in protos for f in fl]
        tsk[info["frame"]] = first(fields, "infiniband.cm.req.ip_cm.private") or first(fields, "infiniband.cm.rep.private")
    for kind in ("REQ", "REP"):
        frame, src, dst, _, data = next(c for c in cm if c[3] == kind)
        name = f"cm-{kind.lower()}-private-data.bin"
        with open(os.path.join(rdir, name), "wb") as f:
            f.write(data)
        index.append({"file": "rpcrdma/" + name, "kind": f"cm_{kind.lower()}_private_data",
                      "direction": "call" if kind == "REQ" else "reply", "frame": frame,
                      "connection": f"{src} > {dst}", "length": len(data),
                      "rfc8797": rdma.rfc8797(data),
                      "tshark": {"private_data": (tsk.get(frame) or "").replace(":", "")}})

    for call, reply in chosen:
        names = {}
        for m in (call, reply):
            n += 1
            prog, vers, proc = m["rpc"]
            names[m["direction"]] = "%04d-%s-%s-%s.bin" % (n, prog_label(prog, vers), proc_name(prog, vers, proc),
                                                           m["direction"])
            with open(os.path.join(rdir, names[m["direction"]]), "wb") as f:
                f.write(m["payload"])
        for m in (call, reply):
            h, (prog, vers, proc) = m["hdr"], m["rpc"]
            entry = {
                "file": "rpcrdma/" + names[m["direction"]],
                "kind": "rpcrdma_message",
                "direction": m["direction"],
                "xid": m["xid"],
                "rdma_vers": h["vers"],
                "credits": h["credits"],
                "rdma_proc": h["proc"],
                "rdma_proc_name": rdma.RDMA_PROCS.get(h["proc"], str(h["proc"])),
                "header_length": h["header_length"],
                "length": len(m["payload"]),
                "read_list": h.get("read_list"),
                "write_list": h.get("write_list"),
                "reply_chunk": h.get("reply_chunk"),
                "inline_rpc": m["inline"] is not None,
                "prog": prog, "prog_name": prog_name(prog, vers), "vers": vers, "proc": proc,
                "proc_name": proc_name(prog, vers, proc),
                "rpc_identity_from": m["rpc_from"],
                "opcode": rdma.OPCODE_NAMES.get(m["opcode"], str(m["opcode"])),
                "invalidate_rkey": m["invalidate"],
                "packets": len(m["frames"]),
                "frame": m["frames"][0],
                "connection": f"{m['src']} > {m['dst']} (QP {m['destqp']:#x})",
                "pair": "rpcrdma/" + names["reply" if m["direction"] == "call" else "call"],
                "step": step_at(steps, call["ts"]),
            }
            for k in ("errcode", "vers_low", "vers_high"):
                if k in h:
                    entry[k] = h[k]
            if m["direction"] == "reply":
                entry["status"] = m["status"]
            entry["tshark_malformed"] = m["tshark_malformed"]
            entry["tshark"] = m["tshark"]
            index.append(entry)
    with open(os.path.join(rdir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    print(f"extract: {pcap}: {len(msgs)} SEND messages ({len(pairs)} exchanges), kept {len(chosen)} "
          f"exchanges and 2 CM private data blocks in {rdir}")
    return index


def rdma_table(index):
    lines = ["| file | RPC | RPC-over-RDMA | chunks | status |", "|---|---|---|---|---|"]
    for e in index:
        tag = os.path.basename(e["file"])
        if e["kind"] != "rpcrdma_message":
            r = e["rfc8797"] or {}
            lines.append(f"| {tag} | RDMA-CM {e['kind'][3:6].upper()} | private data: version "
                         f"{r.get('version')}, flags {r.get('flags')}, send {r.get('send_size')}, receive "
                         f"{r.get('recv_size')} | | |")
            continue
        chunks = []
        if e["read_list"]:
            chunks.append("read list " + ", ".join(f"pos {r['position']} len {r['length']}" for r in e["read_list"]))
        if e["write_list"]:
            chunks.append("write list " + ", ".join(
                "[" + ", ".join(str(s["length"]) for s in c) + "]" for c in e["write_list"]))
        if e["reply_chunk"]:
            chunks.append("reply chunk [" + ", ".join(str(s["length"]) for s in e["reply_chunk"]) + "]")
        lines.append(f"| {tag[:4]} | {e['prog_name']}{e['vers']} {e['proc_name']} {e['direction']} | "
                     f"{e['rdma_proc_name']}, credits {e['credits']}, {e['opcode']} | {'; '.join(chunks)} | "
                     f"{e.get('status', '')} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(REPO, "testdata/golden"),
                    help="where the captures are and the results go (default: testdata/golden)")
    ap.add_argument("--readme", default=os.path.join(HERE, "README.md"),
                    help="README whose coverage sections are regenerated ('' to skip)")
    args = ap.parse_args()
    d = args.dir
    info_path = os.path.join(d, "capture-info.json")
    info = json.load(open(info_path)) if os.path.exists(info_path) else {}
    steps = load_steps(os.path.join(d, "capture.log"))

    index, meta = extract_tcp(os.path.join(d, "nfs3-tcp.pcap"), d, steps, info)
    header = (f"Capture: kernel {info.get('kernel', '?')}; {meta['tshark']}; {meta['records']} records "
              f"kept of {meta['exchanges_in_capture']} exchanges. Numbers are file prefixes in "
              "`testdata/golden/records/`; ʰ = hand-made call.\n\n")
    if args.readme:
        update_readme(args.readme, "coverage", header + coverage_table(index))
    rpcap = os.path.join(d, "nfs3-rdma.pcap")
    if os.path.exists(rpcap):
        rindex = extract_rdma(rpcap, d, steps)
        if args.readme:
            update_readme(args.readme, "coverage-rdma", rdma_table(rindex))


if __name__ == "__main__":
    main()
