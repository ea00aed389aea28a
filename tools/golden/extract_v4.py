#!/usr/bin/env python3
"""Golden NFSv4.1/4.2 wire vectors: cut the v4 captures into records and index them.

    tools/golden/extract_v4.py [--dir testdata/golden/v4] [--readme tools/golden/README.md]

Reads nfs4-tcp.pcap and nfs4-rdma.pcap written by tools/golden/capture-v4.sh and writes:

    DIR/records/NNNN-<label>-<MAIN_OP>-<call|reply>.bin   one RPC record over TCP, marks included
    DIR/index.json                                        one object per record (schema: README.md)
    DIR/meta.json                                         capture info, tshark version, field sources
    DIR/rpcrdma/NNNN-<label>-<MAIN_OP>-<call|reply>.bin   one RPC-over-RDMA SEND (header + inline RPC)
    DIR/rpcrdma/cm-{req,rep}-private-data.bin             RFC 8797 private data
    DIR/rpcrdma/index.json

A label is nfs4.1 / nfs4.2 (NFS program, COMPOUND of that minor version), nfs4 (NULL) or cb4.1 /
cb4.2 (the callback program on the backchannel, CB_COMPOUND). The main operation is the one the
COMPOUND is for (OPEN in SEQUENCE, PUTFH, OPEN, GETFH, ACCESS, GETATTR). Calls are kept with their
replies, one exchange per kind (see `exchange_kind`). Each record carries this script's own parse of
the RPC and COMPOUND headers (xid, program, minor version, tag, number of operations, the first
operation, the COMPOUND status) and tshark's dissection of every operation (an independent oracle):
its name, its status in replies, and the fields listed in OP_FIELDS.

The TCP stream reassembly, record splitting and RPC header parse are extract.py's (the NFSv3 set);
RoCEv2 and RPC-over-RDMA parsing is rdma.py's. Python 3 standard library only; tshark 4.x.
"""
import argparse
import collections
import json
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # importing extract.py must leave no __pycache__ in the tree
import extract as x  # noqa: E402  (tools/golden/extract.py: pcap, TCP, record marking, RPC header)
import rdma  # noqa: E402
from nfs4_names import CB_PROG, NFS_PROG, label_of, main_op, op_name, status_name  # noqa: E402
from v4_tables import coverage_table, rdma_table  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

NFS_PORT = 2049

# ------------------------------------------------------------------------------------------------
# This script's own parse of the COMPOUND / CB_COMPOUND header (RFC 8881 sections 16.2, 20 and 18).

def parse_compound(rec, call):
    """Fills rec["compound"]: tag, minorversion, op_count, first_op (calls; callback_ident for
    CB_COMPOUND), or status, tag, op_count, first_op, first_op_status (replies). None for NULL."""
    prog, proc = call["prog"], call["proc"]
    p, o = rec["payload"], rec.get("body_offset", len(rec["payload"]))
    if proc != 1 or prog not in (NFS_PROG, CB_PROG) or rec.get("accept_stat", 0) != 0 \
            or rec.get("reply_stat", 0) != 0:
        rec["compound"] = None
        return
    u32 = lambda off: struct.unpack(">I", p[off:off + 4])[0]
    c = {}
    if rec["direction"] == "reply":
        c["status"] = u32(o)
        o += 4
    tlen = u32(o)
    c["tag"] = p[o + 4:o + 4 + tlen].decode("utf-8", "replace")
    o += 4 + ((tlen + 3) & ~3)
    if rec["direction"] == "call":
        c["minorversion"] = u32(o)
        o += 4
        if prog == CB_PROG:
            c["callback_ident"] = u32(o)
            o += 4
    c["op_count"] = u32(o)
    o += 4
    if c["op_count"]:
        c["first_op"] = op_name(u32(o), prog == CB_PROG)
        if rec["direction"] == "reply":
            c["first_op_status"] = status_name(u32(o + 4))
    rec["compound"] = c


# ------------------------------------------------------------------------------------------------
# tshark as the oracle, keeping the tree: one entry per operation with the fields beneath it.

# key, tshark field, mode (first | all | bytes | hex | hexall), conversion
OP_FIELDS = [
    ("sessionid", "nfs.session_id4", "hex", None),
    ("seqid", "nfs.seqid", "first", "int"),
    ("slotid", "nfs.slotid", "first", "int"),
    ("highest_slotid", "nfs.high_slotid", "first", "int"),
    ("target_highest_slotid", "nfs.target_high_slotid", "first", "int"),
    ("cachethis", "nfs.cachethis4", "first", "bool"),
    ("sequence_status_flags", "nfs.sequence.flags", "first", "int"),
    ("clientid", "nfs.clientid", "first", "int"),
    ("fh_length", "nfs.fh.length", "all", "int"),
    ("fh", "nfs.fhandle", "hexall", None),
    ("stateid_seqid", "nfs.stateid.seqid", "all", "int"),
    ("stateid_other", "nfs.stateid.other", "hexall", None),
    ("attr_mask", "nfs.attr_mask", "all", "int"),
    ("attrs", "nfs.attr", "all", "int"),
    ("attr_type", "nfs.nfs_ftype4", "all", "int"),
    ("attr_mode", "nfs.mode", "all", "int"),
    ("attr_size", "nfs.fattr4.size", "all", "int"),
    ("attr_numlinks", "nfs.fattr4.numlinks", "all", "int"),
    ("attr_owner", "nfs.fattr4_owner", "all", "str"),
    ("attr_owner_group", "nfs.fattr4_owner_group", "all", "str"),
    ("attr_fileid", "nfs.fattr4.fileid", "all", "int"),
    ("attr_change", "nfs.changeid4", "all", "int"),
    ("attr_time_seconds", "nfs.nfstime4.seconds", "all", "int"),
    ("settime_how", "nfs.set_it", "all", "int"),
    ("attr_lease_time", "nfs.fattr4.lease_time", "first", "int"),
    ("attr_maxread", "nfs.fattr4.maxread", "first", "int"),
    ("attr_maxwrite", "nfs.fattr4.maxwrite", "first", "int"),
    ("attr_space_total", "nfs.fattr4.space_total", "first", "int"),
    ("change_before", "nfs.changeid4.before", "first", "int"),
    ("change_after", "nfs.changeid4.after", "first", "int"),
    ("component", "nfs.pathname.component", "all", "str"),
    ("linktext", "nfs.symlink.linktext", "first", "str"),
    ("offset", "nfs.offset4", "first", "int"),
    ("length", "nfs.length4", "first", "int"),
    ("count", "nfs.count4", "first", "int"),
    ("stable", "nfs.stable_how4", "first", "int"),
    ("eof", "nfs.eof", "first", "int"),
    ("data_length", "nfs.data", "bytes", None),
    ("verifier", "nfs.verifier4", "all", "int"),
    ("access", "nfs.access_check", "first", "int"),
    ("access_supported", "nfs.access_supported", "first", "int"),
    ("access_rights", "nfs.access_rights", "first", "int"),
    ("opentype", "nfs.open.opentype", "first", "int"),
    ("createmode", "nfs.createmode4", "first", "int"),
    ("claim_type", "nfs.open.claim_type", "first", "int"),
    ("share_access", "nfs.open4.share_access", "first", "int"),
    ("share_deny", "nfs.open4.share_deny", "first", "int"),
    ("open_owner", "nfs.open_owner4", "hex", None),
    ("delegation_type", "nfs.open.delegation_type", "first", "int"),
    ("why_no_delegation", "nfs.open.why_no_delegation", "first", "int"),
    ("open_rflags", "nfs.open_rflags", "first", "int"),
    ("recall", "nfs.recall4", "first", "bool"),
    ("locktype", "nfs.locktype4", "first", "int"),
    ("reclaim", "nfs.lock.reclaim", "first", "bool"),
    ("new_lock_owner", "nfs.lock.locker.new_lock_owner", "first", "bool"),
    ("lock_seqid", "nfs.lock_seqid", "first", "int"),
    ("lock_owner", "nfs.lock_owner4", "hex", None),
    ("cookie", "nfs.cookie4", "all", "int"),
    ("cookie_verf", "nfs.cookie_verf4", "first", "int"),
    ("dircount", "nfs.dircount", "first", "int"),
    ("maxcount", "nfs.maxcount", "first", "int"),
    ("entry_names", "nfs.entry_name", "all", "str"),
    ("dir_eof", "nfs.dirlist4.eof", "first", "bool"),
    ("eia_flags", "nfs.exchange_id.call_flags", "first", "int"),
    ("eir_flags", "nfs.exchange_id.reply_flags", "first", "int"),
    ("state_protect", "nfs.exchange_id.state_protect", "first", "int"),
    ("major_id", "nfs.majorid4", "hex", None),
    ("minor_id", "nfs.minorid4", "first", "int"),
    ("server_scope", "nfs.scope", "hex", None),
    ("impl_domain", "nfs.nii_domain4", "first", "str"),
    ("impl_name", "nfs.nii_name4", "first", "str"),
    ("create_session_flags", "nfs.create_session_flags", "first", "int"),
    ("ca_headerpadsize", "nfs.padsize4", "all", "int"),
    ("ca_maxrequestsize", "nfs.maxreqsize4", "all", "int"),
    ("ca_maxresponsesize", "nfs.maxrespsize4", "all", "int"),
    ("ca_maxresponsesize_cached", "nfs.maxrespsizecached4", "all", "int"),
    ("ca_maxoperations", "nfs.maxops4", "all", "int"),
    ("ca_maxrequests", "nfs.maxreqs4", "all", "int"),
    ("cb_program", "nfs.cb_program", "first", "int"),
    ("machinename", "nfs.machinename4", "first", "str"),
    ("secinfo_style", "nfs.secinfo.style", "first", "int"),
    ("secinfo_flavors", "nfs.secinfo.flavor", "all", "int"),
    ("reclaim_one_fs", "nfs.reclaim_one_fs4", "first", "bool"),
    ("whence", "nfs.data_content", "first", "int"),
    ("synchronous", "nfs.synchronous", "first", "bool"),
    ("consecutive", "nfs.consecutive", "first", "bool"),
    ("bctsa_dir", "nfs.bctsa_dir", "first", "int"),
    ("bctsr_dir", "nfs.bctsr_dir", "first", "int"),
    ("truncate", "nfs.truncate", "first", "bool"),
    ("callback_ident", "nfs.callback.ident", "first", "int"),
]


def descendants(el):
    """(name, show) of every field below el, in document order, stopping at nested operations."""
    out = []
    for f in el:
        if f.tag != "field":
            continue
        name = f.get("name")
        if name in ("nfs.opcode", "nfs.cb.operation"):
            continue
        if name:
            out.append((name, f.get("show")))
        out.extend(descendants(f))
    return out


def op_oracle(fields):
    res = {}
    for key, tf, mode, how in OP_FIELDS:
        vals = [v for n, v in fields if n == tf]
        if not vals:
            continue
        if mode == "first":
            res[key] = x.conv(vals[0], how)
        elif mode == "all":
            res[key] = [x.conv(v, how) for v in vals]
        elif mode == "hex":
            res[key] = (vals[0] or "").replace(":", "")
        elif mode == "hexall":
            res[key] = [(v or "").replace(":", "") for v in vals]
        elif mode == "bytes":
            res[key] = len(vals[0].split(":")) if vals[0] else 0
    return res


def walk_ops(el, callback, out):
    """Appends {op, opnum, status?, tshark} for every operation element below el."""
    for f in el:
        if f.tag != "field":
            continue
        name = f.get("name")
        if name in ("nfs.opcode", "nfs.cb.operation"):
            code = int(f.get("show"))
            fields = descendants(f)
            entry = {"op": op_name(code, name == "nfs.cb.operation"), "opnum": code}
            sts = [v for n, v in fields if n == "nfs.nfsstat4"]
            if sts:
                entry["status"] = status_name(int(sts[0]))
            entry["tshark"] = op_oracle(fields)
            if len(sts) > 1:  # TEST_STATEID's results, a status per stateid
                entry["tshark"]["statuses"] = [int(v) for v in sts[1:]]
            out.append(entry)
        else:
            walk_ops(f, callback, out)


def pdml_messages(pcap, extra_args):
    """Yields (frame info, message) per RPC message tshark dissected; a message has its rpc fields
    (flat), the compound header fields (minorversion, tag, ops count, compound status), its
    operations (walk_ops) and whether tshark flagged the packet malformed."""
    cmd = ["tshark", "-n", "-r", pcap, "-T", "pdml"] + list(extra_args)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    for _, pkt in ET.iterparse(proc.stdout):
        if pkt.tag != "packet":
            continue
        info, cur, msgs, malformed = {}, None, [], False
        for p in pkt:
            name = p.get("name")
            if name in x.LOWER_PROTOS or name in ("infiniband", "rpcordma"):
                for f in p.iter("field"):
                    if f.get("name") in ("ip.src", "ip.dst", "tcp.srcport", "tcp.dstport", "num"):
                        info.setdefault(f.get("name"), f.get("show"))
                if name == "rpcordma":
                    info["rpcordma"] = x.flatten(p)
                continue
            if name == "_ws.malformed":
                malformed = True
            if name == "rpc":
                flat = x.flatten(p)
                if x.first(flat, "rpc.xid") is None:
                    cur = None
                    continue
                cur = {"rpc": flat, "ops": [], "header": {}, "malformed": False}
                msgs.append(cur)
            elif name in ("nfs", "nfs.cb") and cur is not None:
                for f in p:
                    fname = f.get("name")
                    if fname == "nfs.minorversion":
                        cur["header"]["minorversion"] = int(f.get("show"))
                    elif fname == "nfs.nfsstat4":
                        cur["header"]["status"] = status_name(int(f.get("show")))
                    elif fname == "nfs.ops.count":
                        cur["header"]["op_count"] = int(f.get("show"))
                    for sub in f.iter("field"):
                        if sub.get("name") == "nfs.tag":
                            cur["header"]["tag"] = sub.get("show")
                walk_ops(p, False, cur["ops"])
        for m in msgs:
            m["malformed"] = malformed
        info["frame"] = int(info["num"])
        yield info, msgs
        pkt.clear()
    if proc.wait() != 0:
        sys.exit("tshark failed")


def rpc_oracle(flat, direction):
    specs = list(x.RPC_COMMON_FIELDS) + (x.RPC_CALL_FIELDS if direction == "call" else x.RPC_REPLY_FIELDS)
    out = {}
    for spec in specs:
        key, tf, mode, how = spec[:4]
        label = spec[4] if len(spec) > 4 else None
        vals = [v for n, v, labels in flat if n == tf and (label is None or label in labels)]
        if not vals:
            continue
        if mode == "first":
            out[key] = x.conv(vals[0], how)
        elif mode == "aux":
            out[key] = [x.conv(v, how) for v in vals[1:]]
    return out


# ------------------------------------------------------------------------------------------------
# Choosing a small but complete set: one exchange per distinct kind.

# Operation fields whose values make a call or reply of the same operations another kind.
KIND_FIELDS = ("createmode", "claim_type", "opentype", "share_access", "share_deny", "stable", "locktype",
               "reclaim", "new_lock_owner", "whence", "delegation_type", "attr_type", "bctsa_dir", "synchronous")


def op_kind(o, call_op):
    t = o["tshark"]
    k = [o["op"], o.get("status")]
    k += [tuple(v) if isinstance(v, list) else v for v in (t.get(f) for f in KIND_FIELDS)]
    if o["op"] == "SETATTR" and call_op:
        k.append(tuple(t.get("attr_mask", ())))
    if o["op"] in ("READDIR",):
        k.append(bool(any(t.get("cookie", [0])[:1])) if call_op else t.get("dir_eof"))
    if o["op"] in ("READ", "SEEK"):
        k.append(t.get("eof"))
    if o["op"] == "SEQUENCE" and not call_op:
        k.append(bool(t.get("sequence_status_flags")))
    if o["op"] == "CREATE" and call_op:
        k.append(tuple(t.get("attr_type", ()))[:1])
    return tuple(k)


def exchange_kind(call, reply):
    k = [call["prog"], call["vers"], call["proc"], (call["compound"] or {}).get("minorversion"), call["handmade"],
         call["cred_flavor"], call["tshark"].get("cred_uid", 0) == 0,
         x.size_class(len(call["raw"])), x.size_class(len(reply["raw"])), len(reply["fragments"]) > 1,
         reply.get("status_label")]
    k += [op_kind(o, True) for o in call["ops"]]
    k += [op_kind(o, False) for o in reply["ops"]]
    return tuple(k)


# ------------------------------------------------------------------------------------------------
# RPC over TCP.

def dump_index(path, index):
    """index.json: one key per line and each value on one line (a list of objects, such as an
    operation list, one object per line), which keeps it small and diffable."""
    def val(v):
        if isinstance(v, list) and v and all(isinstance(i, dict) for i in v):
            return "[\n" + ",\n".join("   " + json.dumps(i) for i in v) + "\n  ]"
        return json.dumps(v)
    with open(path, "w") as f:
        f.write("[\n")
        for i, e in enumerate(index):
            body = ",\n".join(f"  {json.dumps(k)}: {val(v)}" for k, v in e.items())
            f.write(" {\n" + body + "\n }" + ("," if i < len(index) - 1 else "") + "\n")
        f.write("]\n")


def tcp_records(pcap):
    """Every RPC record of the capture, by extract.py's reassembly (connections numbered at SYN)."""
    streams, conn_of, nconn = {}, {}, 0
    for frame, ts, src, sport, dst, dport, seq, flags, payload in x.tcp_segments(pcap):
        tup = (src, sport, dst, dport)
        if flags & 0x12 == 0x02:
            nconn += 1
            conn_of[tup] = conn_of[(dst, dport, src, sport)] = nconn
        conn = conn_of.get(tup)
        if conn is None:
            sys.exit(f"{tup}: traffic before the SYN (start the capture before the traffic)")
        key = tup + (conn,)
        streams.setdefault(key, x.Stream(key)).add(frame, ts, seq, flags, payload)
    records = []
    for key, st in streams.items():
        data, where = st.assemble()
        if data:
            records += x.split_records(key, data, where)
    for rec in records:
        x.parse_rpc(rec)
    records.sort(key=lambda r: (r["frame"], r["stream"]))
    return records


def reply_status_label(reply, call):
    if reply["reply_stat"] != 0 or reply["accept_stat"] != 0:
        return x.status_label(reply, call)
    if reply["compound"] is not None:
        return status_name(reply["compound"]["status"])
    return "SUCCESS"


def extract_tcp(pcap, out, steps, info):
    records = tcp_records(pcap)

    # Calls and replies, matched by connection and xid. Forechannel calls go to port 2049; the
    # backchannel's (CB_COMPOUND, CB_NULL) come from it, on the client's own connection.
    pairs = x.pair_records(records, "extract_v4")
    for call, reply in pairs:
        parse_compound(call, call)
        parse_compound(reply, call)

    # The oracle, matched by (addresses, ports, xid, message type) in order.
    args = ["-o", "rpc.desegment_rpc_over_tcp:TRUE", "-o", "rpc.defragment_rpc_over_tcp:TRUE",
            "-o", "tcp.desegment_tcp_streams:TRUE", "-d", f"tcp.port=={NFS_PORT},rpc"]
    ts_msgs = collections.defaultdict(list)
    for finfo, msgs in pdml_messages(pcap, args):
        for m in msgs:
            m["frame"] = finfo["frame"]
            key = (finfo["ip.src"], int(finfo["tcp.srcport"]), finfo["ip.dst"], int(finfo["tcp.dstport"]),
                   int(x.first(m["rpc"], "rpc.xid"), 16), int(x.first(m["rpc"], "rpc.msgtyp")))
            ts_msgs[key].append(m)
    taken = collections.Counter()
    kver = info.get("kernel", "")
    knfsd = f"knfsd (Linux {kver})".replace(" ()", "")
    for call, reply in pairs:
        for rec in (call, reply):
            s = rec["stream"]
            key = (s[0], s[1], s[2], s[3], rec["xid"], 0 if rec["direction"] == "call" else 1)
            lst = ts_msgs.get(key, [])
            m = lst[taken[key]] if taken[key] < len(lst) else None
            taken[key] += 1
            rec["tshark_dissected"] = m is not None
            rec["tshark_malformed"] = bool(m and m["malformed"])
            rec["tshark"] = rpc_oracle(m["rpc"], rec["direction"]) if m else {}
            rec["tshark_compound"] = m["header"] if m else {}
            rec["ops"] = m["ops"] if m else []
        backchannel = call["prog"] == CB_PROG
        call["handmade"] = call["handmade"] and not backchannel
        call["peer"] = knfsd + " (backchannel)" if backchannel else \
            "tools/golden/rpc4_handmade.py" if call["handmade"] else "Linux kernel NFS client"
        reply["peer"] = "Linux kernel NFS client (backchannel)" if backchannel else knfsd
        call["step"] = x.step_at(steps, call["ts"])
        reply["status_label"] = reply_status_label(reply, call)
        check_own_parse(call, reply)

    chosen, seen = [], set()
    for call, reply in pairs:
        kind = exchange_kind(call, reply)
        if kind not in seen:
            seen.add(kind)
            chosen.append((call, reply))

    rec_dir = os.path.join(out, "records")
    if os.path.isdir(rec_dir):
        shutil.rmtree(rec_dir)
    os.makedirs(rec_dir)
    index, n = [], 0
    for call, reply in chosen:
        minor = (call["compound"] or {}).get("minorversion")
        label = label_of(call["prog"], call["vers"], call["proc"], minor)
        main = main_op([o["op"] for o in call["ops"]]) if call["compound"] else proc_label(call)
        names = {}
        for rec in (call, reply):
            n += 1
            names[rec["direction"]] = "%04d-%s-%s-%s.bin" % (n, label, main, rec["direction"])
            with open(os.path.join(rec_dir, names[rec["direction"]]), "wb") as f:
                f.write(rec["raw"])
        for rec in (call, reply):
            s = rec["stream"]
            e = {
                "file": "records/" + names[rec["direction"]],
                "direction": rec["direction"],
                "xid": rec["xid"],
                "prog": call["prog"],
                "prog_name": "nfs_cb" if call["prog"] == CB_PROG else x.prog_name(call["prog"], call["vers"]),
                "vers": call["vers"],
                "proc": call["proc"],
                "proc_name": proc_label(call),
                "minorversion": minor,
                "main_op": main,
                "backchannel": call["prog"] == CB_PROG,
                "handmade": rec["direction"] == "call" and call["handmade"],
                "fragments": len(rec["fragments"]),
                "fragment_lengths": rec["fragments"],
                "length": len(rec["raw"]),
                "peer": rec["peer"],
                "connection": f"{s[0]}:{s[1]} > {s[2]}:{s[3]}",
                "frame": rec["frame"],
                "pair": "records/" + names["reply" if rec["direction"] == "call" else "call"],
                "step": call["step"],
                "compound": rec["compound"],
            }
            if rec["direction"] == "call":
                e["rpcvers"] = rec["rpcvers"]
                e["cred_flavor"] = rec["cred_flavor"]
            else:
                e["in_reply_to_handmade"] = call["handmade"]
                e["status"] = rec["status_label"]
            e["ops"] = [o["op"] for o in rec["ops"]]
            if rec["direction"] == "reply":
                e["op_statuses"] = [o.get("status") for o in rec["ops"]]
            e["tshark_dissected"] = rec["tshark_dissected"]
            e["tshark_malformed"] = rec["tshark_malformed"]
            e["tshark"] = dict(rec["tshark"], **{"compound_" + k: v for k, v in rec["tshark_compound"].items()})
            e["tshark_ops"] = rec["ops"]
            index.append(e)
    dump_index(os.path.join(out, "index.json"), index)
    meta = {"pcap": os.path.basename(pcap), "capture": info, "tshark": x.tshark_version(),
            "records": len(index), "exchanges_in_capture": len(pairs),
            "op_fields": {k: tf + ("" if mode == "first" else f" [{mode}]") for k, tf, mode, _ in OP_FIELDS}}
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(rec_dir, f)) for f in os.listdir(rec_dir))
    print(f"extract_v4: {pcap}: {len(pairs)} exchanges, kept {len(chosen)} ({len(index)} records, "
          f"{total} bytes) in {rec_dir}")
    bad = [e["file"] for e in index if (e["tshark_malformed"] or not e["tshark_dissected"])
           and not (e["handmade"] or e.get("in_reply_to_handmade"))]
    if bad:
        print("extract_v4: tshark did not dissect, or flags as malformed: " + ", ".join(bad), file=sys.stderr)
    return index, meta, pairs


def proc_label(call):
    if call["prog"] == CB_PROG:
        return ["CB_NULL", "CB_COMPOUND"][call["proc"]] if call["proc"] < 2 else f"PROC{call['proc']}"
    if call["prog"] == NFS_PROG and call["vers"] == 4:
        return ["NULL", "COMPOUND"][call["proc"]] if call["proc"] < 2 else f"PROC{call['proc']}"
    return x.proc_name(call["prog"], call["vers"], call["proc"])


def check_own_parse(call, reply):
    """This script's parse and tshark's must agree on the COMPOUND header: a difference means one of
    them misread the record, and the vectors must not be committed that way."""
    for rec in (call, reply):
        c = rec["compound"]
        if c is None or not rec["tshark_dissected"]:
            continue
        where = f"frame {rec['frame']} ({rec['direction']} xid {rec['xid']:#x})"
        if c["op_count"] != len(rec["ops"]):
            sys.exit(f"extract_v4: {where}: {c['op_count']} operations by our parse, {len(rec['ops'])} by tshark")
        if rec["ops"] and c.get("first_op") != rec["ops"][0]["op"]:
            sys.exit(f"extract_v4: {where}: first operation {c.get('first_op')} vs tshark's {rec['ops'][0]['op']}")
        if rec["direction"] == "reply" and rec["ops"] and c.get("first_op_status") != rec["ops"][0].get("status"):
            sys.exit(f"extract_v4: {where}: first status {c.get('first_op_status')} vs tshark's {rec['ops'][0].get('status')}")


# ------------------------------------------------------------------------------------------------
# RPC over RDMA.

def extract_rdma(pcap, out, steps, info):
    packets = list(rdma.roce_packets(x.read_pcap(pcap)))
    cm = list(rdma.cm_private_data(packets))
    servers = {dst for _, _, dst, name, _ in cm if name == "REQ"}
    msgs = rdma.send_messages(packets)

    # tshark: per frame, the rpcordma header and the RPC messages it dissected there (inline, or
    # reassembled from a read chunk or a reply chunk).
    # tshark dissects a call that had a read chunk once it has the chunk's data (in the frame of the
    # last RDMA Read response), and a reply in a reply chunk from the RDMA Writes that carried it.
    by_frame, dissected = {}, collections.defaultdict(list)
    for finfo, tmsgs in pdml_messages(pcap, []):
        if "rpcordma" in finfo:
            by_frame[finfo["frame"]] = finfo["rpcordma"]
        for m in tmsgs:
            dissected[(int(x.first(m["rpc"], "rpc.xid"), 16), int(x.first(m["rpc"], "rpc.msgtyp")))].append(m)

    for m in msgs:
        m["hdr"] = rdma.parse_rpcrdma(m["payload"])
        m["xid"] = m["hdr"]["xid"]
        m["from_server"] = m["src"] in servers
        m["inline"] = None
        if m["hdr"]["proc"] == 0:
            rec = {"payload": m["payload"][m["hdr"]["header_length"]:], "stream": (m["src"], m["dst"])}
            x.parse_rpc(rec)
            m["inline"] = rec
            m["direction"] = rec["direction"]
        else:  # RDMA_NOMSG: the call is in a position-zero read chunk, the reply in the reply chunk
            m["direction"] = "call" if any(r["position"] == 0 for r in m["hdr"]["read_list"] or []) else "reply"
        m["backchannel"] = m["from_server"] == (m["direction"] == "call")
        t = by_frame.get(m["frames"][-1])
        m["tshark"] = x.pick(t, x.RPCRDMA_FIELDS) if t else {}
        # The most complete dissection of this xid and direction (xids are unique in this capture
        # per direction of the forechannel; backchannel xids are the server's own).
        cands = [c for c in dissected.get((m["xid"], 0 if m["direction"] == "call" else 1), [])
                 if (x.first(c["rpc"], "rpc.program") == str(CB_PROG)) == m["backchannel"]
                 or x.first(c["rpc"], "rpc.program") is None]
        tm = max(cands, key=lambda c: len(c["ops"]), default=None)
        m["tmsg"] = tm
        m["tshark_malformed"] = bool(tm and tm["malformed"])
        m["ops"] = tm["ops"] if tm else []

    pending, pairs = collections.defaultdict(list), []
    for m in msgs:
        if m["direction"] == "call":
            if m["inline"]:
                m["rpc"], m["rpc_from"] = (m["inline"]["prog"], m["inline"]["vers"], m["inline"]["proc"]), "inline"
            elif m["tmsg"]:
                m["rpc"], m["rpc_from"] = tuple(int(x.first(m["tmsg"]["rpc"], k)) for k in
                                                ("rpc.program", "rpc.programversion", "rpc.procedure")), \
                    "tshark (read chunk)"
            else:
                m["rpc"], m["rpc_from"] = (0, 0, 0), "unknown"
            m["minor"] = (m["tmsg"] or {}).get("header", {}).get("minorversion")
            if m["inline"]:
                c = {"prog": m["rpc"][0], "proc": m["rpc"][2]}
                parse_compound(m["inline"], c)
                if m["inline"]["compound"]:
                    m["minor"] = m["inline"]["compound"]["minorversion"]
            pending[(m["backchannel"], m["xid"])].append(m)
        elif pending.get((m["backchannel"], m["xid"])):
            call = pending[(m["backchannel"], m["xid"])].pop(0)
            m["rpc"], m["rpc_from"], m["minor"] = call["rpc"], "call", call["minor"]
            c = {"prog": call["rpc"][0], "vers": call["rpc"][1], "proc": call["rpc"][2]}
            if m["inline"]:
                parse_compound(m["inline"], c)
                m["status"] = reply_status_label(m["inline"], c)
            elif m["tmsg"] and "status" in m["tmsg"]["header"]:
                m["status"] = m["tmsg"]["header"]["status"] + " (in the reply chunk)"
            else:
                m["status"] = "(in the reply chunk)"
            pairs.append((call, m))

    def shape(m):
        h = m["hdr"]
        reads = h.get("read_list") or []
        return (m["direction"], m["backchannel"], h["proc"], m["opcode"], bool(reads),
                any(r["position"] == 0 for r in reads), len(reads), len(h.get("write_list") or []),
                h.get("reply_chunk") is not None)

    chosen, seen = [], set()
    for call, reply in pairs:
        kind = (call["rpc"], call["minor"], tuple(o["op"] for o in call["ops"]), shape(call), shape(reply),
                reply.get("status"))
        if kind not in seen:
            seen.add(kind)
            chosen.append((call, reply))

    rdir = os.path.join(out, "rpcrdma")
    if os.path.isdir(rdir):
        shutil.rmtree(rdir)
    os.makedirs(rdir)
    index = []
    tsk = {}
    for finfo, protos in x.pdml_packets(pcap, ["-Y", "infiniband.cm.req.ip_cm.private || infiniband.cm.rep.private"]):
        fields = [f for _, fl in protos for f in fl]
        tsk[finfo["frame"]] = x.first(fields, "infiniband.cm.req.ip_cm.private") or \
            x.first(fields, "infiniband.cm.rep.private")
    for kind in ("REQ", "REP"):
        frame, src, dst, _, data = next(c for c in cm if c[3] == kind)
        name = f"cm-{kind.lower()}-private-data.bin"
        with open(os.path.join(rdir, name), "wb") as f:
            f.write(data)
        index.append({"file": "rpcrdma/" + name, "kind": f"cm_{kind.lower()}_private_data",
                      "direction": "call" if kind == "REQ" else "reply", "frame": frame,
                      "connection": f"{src} > {dst}", "length": len(data), "rfc8797": rdma.rfc8797(data),
                      "tshark": {"private_data": (tsk.get(frame) or "").replace(":", "")}})
    n = 0
    for call, reply in chosen:
        prog, vers, proc = call["rpc"]
        label = label_of(prog, vers, proc, call["minor"])
        main = main_op([o["op"] for o in call["ops"]]) if proc == 1 else ("CB_NULL" if prog == CB_PROG else "NULL")
        names = {}
        for m in (call, reply):
            n += 1
            names[m["direction"]] = "%04d-%s-%s-%s.bin" % (n, label, main, m["direction"])
            with open(os.path.join(rdir, names[m["direction"]]), "wb") as f:
                f.write(m["payload"])
        for m in (call, reply):
            h = m["hdr"]
            e = {
                "file": "rpcrdma/" + names[m["direction"]],
                "kind": "rpcrdma_message",
                "direction": m["direction"],
                "backchannel": m["backchannel"],
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
                "prog": prog, "vers": vers, "proc": proc,
                "prog_name": "nfs_cb" if prog == CB_PROG else x.prog_name(prog, vers),
                "proc_name": proc_label({"prog": prog, "vers": vers, "proc": proc}),
                "minorversion": call["minor"],
                "main_op": main,
                "rpc_identity_from": m["rpc_from"],
                "ops": [o["op"] for o in m["ops"]],
                "opcode": rdma.OPCODE_NAMES.get(m["opcode"], str(m["opcode"])),
                "invalidate_rkey": m["invalidate"],
                "packets": len(m["frames"]),
                "frame": m["frames"][0],
                "connection": f"{m['src']} > {m['dst']} (QP {m['destqp']:#x})",
                "pair": "rpcrdma/" + names["reply" if m["direction"] == "call" else "call"],
                "step": x.step_at(steps, call["ts"]),
            }
            if m["inline"] is not None:
                e["compound"] = m["inline"].get("compound")
            if m["direction"] == "reply":
                e["status"] = m["status"]
                e["op_statuses"] = [o.get("status") for o in m["ops"]]
            e["tshark_malformed"] = m["tshark_malformed"]
            e["tshark"] = m["tshark"]
            e["tshark_ops"] = m["ops"]
            index.append(e)
    dump_index(os.path.join(rdir, "index.json"), index)
    print(f"extract_v4: {pcap}: {len(msgs)} SEND messages ({len(pairs)} exchanges), kept {len(chosen)} "
          f"exchanges and 2 CM private data blocks in {rdir}")
    return index


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(REPO, "testdata/golden/v4"),
                    help="where the captures are and the results go (default: testdata/golden/v4)")
    ap.add_argument("--readme", default=os.path.join(HERE, "README.md"),
                    help="README whose v4 coverage sections are regenerated ('' to skip)")
    args = ap.parse_args()
    d = args.dir
    info_path = os.path.join(d, "capture-info.json")
    info = json.load(open(info_path)) if os.path.exists(info_path) else {}
    steps = x.load_steps(os.path.join(d, "capture.log"))
    index, meta, _ = extract_tcp(os.path.join(d, "nfs4-tcp.pcap"), d, steps, info)
    rindex = []
    rpcap = os.path.join(d, "nfs4-rdma.pcap")
    if os.path.exists(rpcap):
        rindex = extract_rdma(rpcap, d, steps, info)
    if args.readme:
        table, missing = coverage_table(index, rindex)
        header = (f"Capture: kernel {info.get('kernel', '?')}; {meta['tshark']}; {meta['records']} records kept "
                  f"of {meta['exchanges_in_capture']} exchanges over TCP, {len(rindex) - 2} RDMA messages. "
                  "Numbers are file prefixes in `testdata/golden/v4/records/`; a call is listed under the "
                  "operation it is for (`main_op`), a status with the first reply that has it; ʰ = hand-made.\n\n")
        footer = "\n\nNot in the capture: " + ", ".join(missing) + "."
        x.update_readme(args.readme, "coverage-v4", header + table + footer, "extract_v4.py", strict=True)
        x.update_readme(args.readme, "coverage-v4-rdma", rdma_table(rindex), "extract_v4.py", strict=True)


if __name__ == "__main__":
    main()
