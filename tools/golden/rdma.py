"""RoCEv2 captures down to RPC-over-RDMA messages (used by extract.py; Python standard library only).

A RoCEv2 packet is UDP (destination port 4791) carrying an InfiniBand Base Transport Header (BTH),
opcode-specific extension headers, the payload, 0-3 pad bytes and a 4-byte invariant CRC. RPC-over-RDMA
v1 (RFC 8166) travels in SEND messages of reliable-connected queue pairs: one SEND is one transport
header, followed by the RPC message when the header says RDMA_MSG. A SEND larger than the path MTU is
split into SEND First / Middle / Last packets. Connection setup uses the InfiniBand CM (MADs on QP1),
whose REQ and REP carry the RFC 8797 private data.
"""
import struct

ROCEV2_PORT = 4791

# RC opcodes (IBTA vol. 1, table 38) and the extension headers that follow the BTH.
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM = range(6)
SEND_LAST_INV, SEND_ONLY_INV = 0x16, 0x17
UD_SEND_ONLY = 0x64
OPCODE_NAMES = {
    0x00: "SEND_FIRST", 0x01: "SEND_MIDDLE", 0x02: "SEND_LAST", 0x03: "SEND_LAST_WITH_IMMEDIATE",
    0x04: "SEND_ONLY", 0x05: "SEND_ONLY_WITH_IMMEDIATE", 0x06: "RDMA_WRITE_FIRST",
    0x07: "RDMA_WRITE_MIDDLE", 0x08: "RDMA_WRITE_LAST", 0x09: "RDMA_WRITE_LAST_WITH_IMMEDIATE",
    0x0A: "RDMA_WRITE_ONLY", 0x0B: "RDMA_WRITE_ONLY_WITH_IMMEDIATE", 0x0C: "RDMA_READ_REQUEST",
    0x0D: "RDMA_READ_RESPONSE_FIRST", 0x0E: "RDMA_READ_RESPONSE_MIDDLE",
    0x0F: "RDMA_READ_RESPONSE_LAST", 0x10: "RDMA_READ_RESPONSE_ONLY", 0x11: "ACKNOWLEDGE",
    0x16: "SEND_LAST_WITH_INVALIDATE", 0x17: "SEND_ONLY_WITH_INVALIDATE", 0x64: "UD_SEND_ONLY",
}
EXT_LEN = {  # bytes of extension headers after the BTH
    0x03: 4, 0x05: 4,                      # ImmDt
    0x06: 16, 0x0A: 16, 0x0B: 20, 0x09: 4,  # RETH (+ ImmDt)
    0x0C: 16,                              # RETH
    0x0D: 4, 0x0F: 4, 0x10: 4, 0x11: 4,    # AETH
    0x16: 4, 0x17: 4,                      # IETH
    0x64: 8,                               # DETH
}

RDMA_PROCS = {0: "RDMA_MSG", 1: "RDMA_NOMSG", 2: "RDMA_MSGP", 3: "RDMA_DONE", 4: "RDMA_ERROR"}

# CM MADs: management class 0x07; attribute IDs; where the private data starts in the MAD and how long
# it is (REQ: 92 bytes at 24 + 140; REP: 196 at 24 + 36). For RDMA-CM over IP the first 36 bytes of the
# REQ private data are the IP CM header (RDMA-CM's own), the consumer's private data follows.
CM_CLASS = 0x07
CM_ATTRS = {0x0010: "REQ", 0x0011: "MRA", 0x0012: "REJ", 0x0013: "REP", 0x0014: "RTU",
            0x0015: "DREQ", 0x0016: "DREP"}
CM_PRIVATE = {"REQ": (164, 92, 36), "REP": (60, 196, 0)}  # (offset in MAD, length, IP CM header)
RFC8797_MAGIC = 0xF6AB0E18


def roce_packets(pcap_packets):
    """Yields one dict per RoCEv2 packet of an Ethernet/IPv4 capture."""
    for frame, ts, link, pkt in pcap_packets:
        if link != 1 or struct.unpack(">H", pkt[12:14])[0] != 0x0800:
            continue
        ip = 14
        ihl = (pkt[ip] & 0x0F) * 4
        if pkt[ip + 9] != 17:
            continue
        total = struct.unpack(">H", pkt[ip + 2:ip + 4])[0]
        udp = ip + ihl
        if struct.unpack(">H", pkt[udp + 2:udp + 4])[0] != ROCEV2_PORT:
            continue
        bth = pkt[udp + 8:ip + total]
        opcode = bth[0]
        padcnt = (bth[1] >> 4) & 3
        destqp = int.from_bytes(bth[5:8], "big")
        psn = int.from_bytes(bth[9:12], "big")
        ext = EXT_LEN.get(opcode, 0)
        yield {"frame": frame, "ts": ts, "src": ".".join(map(str, pkt[ip + 12:ip + 16])),
               "dst": ".".join(map(str, pkt[ip + 16:ip + 20])), "opcode": opcode, "destqp": destqp,
               "psn": psn, "ext": bth[12:12 + ext], "payload": bth[12 + ext:len(bth) - 4 - padcnt]}


def send_messages(packets):
    """Reassembles RC SEND messages per (src, dst, destination QP), in PSN order as captured.

    Returns messages with: src, dst, destqp, frames, opcode (of the last packet), invalidate (the
    rkey of a SEND with Invalidate, else None), payload."""
    partial, done, seen = {}, [], set()
    for p in packets:
        op = p["opcode"]
        if op not in (0, 1, 2, 3, 4, 5, SEND_LAST_INV, SEND_ONLY_INV):
            continue
        key = (p["src"], p["dst"], p["destqp"])
        if (key, p["psn"]) in seen:  # a retransmitted packet
            continue
        seen.add((key, p["psn"]))
        if op in (SEND_FIRST, SEND_ONLY, SEND_ONLY_IMM, SEND_ONLY_INV):
            partial[key] = {"src": p["src"], "dst": p["dst"], "destqp": p["destqp"], "frames": [],
                            "ts": p["ts"], "payload": b""}
        msg = partial.get(key)
        if msg is None:
            raise ValueError(f"frame {p['frame']}: SEND continuation without a first packet")
        msg["frames"].append(p["frame"])
        msg["payload"] += p["payload"]
        if op in (SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM, SEND_LAST_INV, SEND_ONLY_INV):
            msg["opcode"] = op
            msg["invalidate"] = struct.unpack(">I", p["ext"])[0] if op in (SEND_LAST_INV, SEND_ONLY_INV) else None
            done.append(partial.pop(key))
    return done


def parse_rpcrdma(b):
    """Parses an RPC-over-RDMA version 1 transport header (RFC 8166 section 4)."""
    u32 = lambda o: struct.unpack(">I", b[o:o + 4])[0]
    seg = lambda o: {"handle": u32(o), "length": u32(o + 4), "offset": struct.unpack(">Q", b[o + 8:o + 16])[0]}
    h = {"xid": u32(0), "vers": u32(4), "credits": u32(8), "proc": u32(12)}
    o = 16
    if h["proc"] in (0, 1, 2):  # MSG, NOMSG, (MSGP: align and threshold first)
        if h["proc"] == 2:
            h["align"], h["thresh"] = u32(o), u32(o + 4)
            o += 8
        h["read_list"] = []
        while u32(o) == 1:  # read segments: position, then a plain segment
            h["read_list"].append(dict(position=u32(o + 4), **seg(o + 8)))
            o += 24
        o += 4
        h["write_list"] = []
        while u32(o) == 1:  # write chunks: a counted array of segments
            n = u32(o + 4)
            h["write_list"].append([seg(o + 8 + 16 * i) for i in range(n)])
            o += 8 + 16 * n
        o += 4
        if u32(o) == 1:
            n = u32(o + 4)
            h["reply_chunk"] = [seg(o + 8 + 16 * i) for i in range(n)]
            o += 8 + 16 * n
        else:
            h["reply_chunk"] = None
            o += 4
    elif h["proc"] == 4:  # RDMA_ERROR
        h["errcode"] = u32(o)
        o += 4
        if h["errcode"] == 1:  # ERR_VERS
            h["vers_low"], h["vers_high"] = u32(o), u32(o + 4)
            o += 8
    h["header_length"] = o
    return h


def cm_private_data(packets):
    """Yields (frame, src, dst, CM message name, consumer private data) for CM REQ and REP MADs."""
    for p in packets:
        if p["opcode"] != UD_SEND_ONLY or p["destqp"] != 1:
            continue
        mad = p["payload"]
        if len(mad) < 256 or mad[1] != CM_CLASS:
            continue
        name = CM_ATTRS.get(struct.unpack(">H", mad[16:18])[0])
        if name not in CM_PRIVATE:
            continue
        off, length, ipcm = CM_PRIVATE[name]
        yield p["frame"], p["src"], p["dst"], name, mad[off + ipcm:off + length]


def rfc8797(data):
    """Decodes the 8-byte RPC-over-RDMA connection private data, or None without the magic."""
    if len(data) < 8 or struct.unpack(">I", data[:4])[0] != RFC8797_MAGIC:
        return None
    version, flags, send, recv = data[4:8]
    return {"magic": RFC8797_MAGIC, "version": version, "flags": flags,
            "remote_invalidation": bool(flags & 1), "send_size_code": send, "recv_size_code": recv,
            "send_size": (send + 1) * 1024, "recv_size": (recv + 1) * 1024}
