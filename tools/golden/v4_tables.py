"""The generated tables of tools/golden/README.md's NFSv4 section, for extract_v4.py."""
import collections
import os

from nfs4_names import NFS4_OPS, label_of

CREATEMODE4 = ["UNCHECKED4", "GUARDED4", "EXCLUSIVE4", "EXCLUSIVE4_1"]
CLAIM4 = ["CLAIM_NULL", "CLAIM_PREVIOUS", "CLAIM_DELEGATE_CUR", "CLAIM_DELEGATE_PREV", "CLAIM_FH",
          "CLAIM_DELEG_CUR_FH", "CLAIM_DELEG_PREV_FH"]
STABLE4 = ["UNSTABLE4", "DATA_SYNC4", "FILE_SYNC4"]
LOCKTYPE4 = [None, "READ_LT", "WRITE_LT", "READW_LT", "WRITEW_LT"]
FTYPE4 = [None, "NF4REG", "NF4DIR", "NF4BLK", "NF4CHR", "NF4LNK", "NF4SOCK", "NF4FIFO"]
DELEG4 = ["no delegation", "read delegation", "write delegation", "OPEN_DELEGATE_NONE_EXT"]


def idx(table, v):
    return table[v] if isinstance(v, int) and 0 <= v < len(table) and table[v] else str(v)


def op_note(o, e):
    """A few words on what makes this operation in this call different from the others."""
    t, notes = o["tshark"], []
    if o["op"] == "OPEN":
        if t.get("opentype") == 1:
            notes.append("create " + idx(CREATEMODE4, t.get("createmode")))
        notes.append(idx(CLAIM4, t.get("claim_type")))
        notes.append({1: "read", 2: "write", 3: "rw"}.get((t.get("share_access") or 0) & 3, "?"))
    if o["op"] in ("WRITE",) and "stable" in t:
        notes.append(idx(STABLE4, t["stable"]))
    if o["op"] in ("LOCK", "LOCKT", "LOCKU") and "locktype" in t:
        notes.append(idx(LOCKTYPE4, t["locktype"]))
        if t.get("reclaim"):
            notes.append("reclaim")
        if o["op"] == "LOCK":
            notes.append("new lock owner" if t.get("new_lock_owner") else "existing lock owner")
    if o["op"] == "CREATE" and t.get("attr_type"):
        notes.append(idx(FTYPE4, t["attr_type"][0]))
    if o["op"] == "SEEK" and "whence" in t:
        notes.append({0: "DATA", 1: "HOLE"}.get(t["whence"], str(t["whence"])))
    if o["op"] == "READDIR" and any(t.get("cookie", [0])[:1]):
        notes.append("cookie>0")
    if o["op"] == "SETATTR" and t.get("attrs"):
        notes.append("attrs " + ",".join(str(a) for a in t["attrs"]))
    if o["op"] == "BIND_CONN_TO_SESSION" and "bctsa_dir" in t:
        notes.append({1: "fore", 2: "back", 3: "fore or both", 7: "back or both"}.get(t["bctsa_dir"], str(t["bctsa_dir"])))
    if t.get("count", 0) >= 1 << 20 or t.get("data_length", 0) >= 1 << 20:
        notes.append("1 MiB")
    if o["op"] == "OPEN" and t.get("share_deny"):
        notes.append("deny " + {1: "read", 2: "write", 3: "both"}.get(t["share_deny"], str(t["share_deny"])))
    if e.get("tshark", {}).get("cred_uid", 0) != 0:
        notes.append(f"uid {e['tshark']['cred_uid']}")
    return f" ({', '.join(notes)})" if notes else ""


def coverage_table(index, rindex):
    """Markdown: per operation, the calls where it is the main operation and the statuses seen."""
    rows = {}
    by_file = {e["file"]: e for e in index}

    def row(o, cb):
        return rows.setdefault((cb, o["opnum"]), {"name": o["op"], "calls": {}, "in": set(),
                                                  "statuses": collections.OrderedDict(), "rdma": set()})

    for e in index:
        cb = e["backchannel"]
        if not e["tshark_ops"]:
            continue
        tag = os.path.basename(e["file"])[:4] + ("ʰ" if e.get("handmade") or e.get("in_reply_to_handmade") else "")
        if e["direction"] == "call":
            for o in e["tshark_ops"]:
                r = row(o, cb)
                r["in"].add(e["minorversion"])
                if o["op"] == e["main_op"]:
                    r["calls"].setdefault(e["minorversion"], []).append(tag + op_note(o, e))
        else:
            for o in e["tshark_ops"]:
                r = row(o, cb)
                st = o.get("status", "?")
                if st not in r["statuses"] and (st != "NFS4_OK" or o["op"] == by_file[e["pair"]]["main_op"]
                                                or not r["statuses"]):
                    r["statuses"][st] = tag
    for e in rindex:
        for o in e.get("tshark_ops", []):
            row(o, e.get("backchannel", False))["rdma"].add(os.path.basename(e["file"])[:4])
    lines = ["| operation | NFSv4.1 calls (main operation) | NFSv4.2 calls | reply statuses (first reply) | over RDMA |",
             "|---|---|---|---|---|"]
    for (cb, num) in sorted(rows):
        r = rows[(cb, num)]
        cells = []
        for minor in (1, 2):
            calls = r["calls"].get(minor, [])
            if calls:
                cells.append("; ".join(calls[:6]) + (f"; +{len(calls) - 6}" if len(calls) > 6 else ""))
            else:
                cells.append("(inside others)" if minor in r["in"] else "—")
        st = "; ".join(f"{s} {t}" for s, t in r["statuses"].items())
        rd = f"{len(r['rdma'])} records" if r["rdma"] else "—"
        lines.append(f"| {r['name']} ({num}) | {cells[0]} | {cells[1]} | {st} | {rd} |")
    bare = [f"{e['status']} {os.path.basename(e['file'])[:4]}" + ("ʰ" if e.get("in_reply_to_handmade") else "")
            for e in index if e["direction"] == "reply" and e["proc"] == 1 and not e["tshark_ops"]]
    if bare:
        lines.append(f"| (COMPOUND status, no results) | | | {'; '.join(bare)} | |")
    missing = [f"{n} ({c})" for c, n in sorted(NFS4_OPS.items()) if (False, c) not in rows and c < 10044]
    return "\n".join(lines), missing


def rdma_table(index):
    lines = ["| file | RPC | RPC-over-RDMA | chunks | status |", "|---|---|---|---|---|"]
    for e in index:
        tag = os.path.basename(e["file"])
        if e["kind"] != "rpcrdma_message":
            r = e["rfc8797"] or {}
            lines.append(f"| {tag} | RDMA-CM {e['kind'][3:6].upper()} | private data: version {r.get('version')}, "
                         f"flags {r.get('flags')}, send {r.get('send_size')}, receive {r.get('recv_size')} | | |")
            continue
        chunks = []
        if e["read_list"]:
            chunks.append("read list " + ", ".join(f"pos {r['position']} len {r['length']}" for r in e["read_list"]))
        if e["write_list"]:
            chunks.append("write list " + ", ".join("[" + ", ".join(str(s["length"]) for s in c) + "]"
                                                    for c in e["write_list"]))
        if e["reply_chunk"]:
            chunks.append("reply chunk [" + ", ".join(str(s["length"]) for s in e["reply_chunk"]) + "]")
        what = e["main_op"] if e["proc"] == 1 else e["proc_name"]
        label = label_of(e["prog"], e["vers"], e["proc"], e["minorversion"])
        lines.append(f"| {tag[:4]} | {label} {what} {e['direction']}{' (backchannel)' if e['backchannel'] else ''} | "
                     f"{e['rdma_proc_name']}, credits {e['credits']}, {e['opcode']} | {'; '.join(chunks)} | "
                     f"{e.get('status', '')} |")
    return "\n".join(lines)
